// Helpers shared by the GPU tests of stream compaction (nvcc only): size lists around the tile,
// selection patterns, item generators for any type, the run configurations (strategy x offset
// width x in place), and comparisons that name the first mismatch.
#pragma once

#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/partition.h>
#include <thrust/unique.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "scankit/compact.hpp"
#include "scankit/device_features.hpp"
#include "scankit/compact_options.hpp"
#include "scankit/device/compact/compact_policy.cuh"
#include "scankit/reference/compact_reference.hpp"
#include "scankit/workspace.hpp"
#include "support/gpu_test.hpp"

namespace scankit::testing {

// Items of the tuned tile for a compaction whose widest per-item array has `Bytes` bytes
// (the register kernel: partition_if, the stencil sources, unique_by_key).
template <std::size_t Bytes>
constexpr std::int64_t compact_tile_items() {
  return scankit::device_detail::tuned_compact_policy<Bytes>::tile_items;
}

// The same for select_if and unique on items of `Bytes` bytes (the staged kernel where it applies).
template <std::size_t Bytes>
constexpr std::int64_t selection_tile_items() {
  return scankit::device_detail::resolved_selection_policy<scankit::device::tuned, Bytes>::tile_items;
}

// True when SCANKIT_TEST_SMALL is set (e.g. under compute-sanitizer): sizes stay below ~10 tiles.
inline bool small_sizes_only() {
  const char* small = std::getenv("SCANKIT_TEST_SMALL");
  return small != nullptr && *small != '\0' && *small != '0';
}

// 0, 1, 31, 32, 33, tile-1, tile, tile+1, two tiles and one, many tiles, two random
// non-multiples, and (when `large`) 2^24 + 7. SCANKIT_TEST_SMALL: at most 9 tiles and a bit.
inline std::vector<std::int64_t> compact_sizes(std::int64_t tile, std::uint64_t seed, bool large) {
  const bool small = small_sizes_only();
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> random_size(tile + 1, (small ? 8 : 48) * tile);
  std::vector<std::int64_t> sizes = {0, 1, 31, 32, 33, tile - 1, tile, tile + 1, 2 * tile + 1,
                                     (small ? 9 : 37) * tile + 5};
  for (int i = 0; i < 2; ++i) {
    std::int64_t n = random_size(rng);
    if (n % tile == 0) ++n;
    sizes.push_back(n);
  }
  if (large && !small) sizes.push_back((std::int64_t{1} << 24) + 7);
  return sizes;
}

// Which items a test keeps.
enum class pattern { none, all, alternating, random_1, random_50, random_99 };
inline constexpr pattern all_patterns[] = {pattern::none,     pattern::all,       pattern::alternating,
                                           pattern::random_1, pattern::random_50, pattern::random_99};

inline const char* to_string(pattern p) {
  switch (p) {
    case pattern::none: return "none";
    case pattern::all: return "all";
    case pattern::alternating: return "alternating";
    case pattern::random_1: return "random_1%";
    case pattern::random_50: return "random_50%";
    case pattern::random_99: return "random_99%";
  }
  return "?";
}

// Keep decisions for n items (true = selected).
inline std::vector<std::uint8_t> keep_pattern(pattern p, std::int64_t n, std::uint64_t seed) {
  std::vector<std::uint8_t> keep(static_cast<std::size_t>(n));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> percent(0, 99);
  for (std::int64_t i = 0; i < n; ++i) {
    bool k = false;
    switch (p) {
      case pattern::none: k = false; break;
      case pattern::all: k = true; break;
      case pattern::alternating: k = i % 2 == 0; break;
      case pattern::random_1: k = percent(rng) < 1; break;
      case pattern::random_50: k = percent(rng) < 50; break;
      case pattern::random_99: k = percent(rng) < 99; break;
    }
    keep[static_cast<std::size_t>(i)] = k ? 1 : 0;
  }
  return keep;
}

// Random bits for any trivially copyable type (never all zeros; floats may be NaN: compared
// bitwise, which is what a compaction must preserve).
template <class T>
std::vector<T> random_items(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (auto& x : v) {
    unsigned char bytes[sizeof(T)];
    for (std::size_t b = 0; b < sizeof(T); b += 8) {
      const std::uint64_t r = rng();
      std::memcpy(bytes + b, &r, sizeof(T) - b < 8 ? sizeof(T) - b : 8);
    }
    std::memcpy(&x, bytes, sizeof(T));
  }
  return v;
}

// Forces the portable kernels (as on GPUs before sm_90) for its lifetime.
struct portable_kernels_forced {
  portable_kernels_forced() { scankit::force_portable_kernels(true); }
  ~portable_kernels_forced() { scankit::force_portable_kernels(false); }
  portable_kernels_forced(const portable_kernels_forced&) = delete;
  portable_kernels_forced& operator=(const portable_kernels_forced&) = delete;
};

// How one run is configured.
struct run_config {
  compact_strategy strategy;
  bool wide;
  bool in_place;
  bool own_workspace;  // a reused workspace, else ws == nullptr
};

inline std::string describe(const run_config& c) {
  return std::string(scankit::to_string(c.strategy)) + (c.wide ? " 64-bit offsets" : " 32-bit offsets") +
         (c.in_place ? " in place" : "") + (c.own_workspace ? " reused workspace" : " temporary workspace");
}

inline compact_options options_of(const run_config& c) {
  compact_options o;
  o.strategy = c.strategy;
  o.force_64bit_offsets = c.wide;
  return o;
}

// Every strategy x offset width, optionally x in place.
inline std::vector<run_config> run_configs(bool with_in_place) {
  std::vector<run_config> configs;
  for (compact_strategy s : {compact_strategy::automatic, compact_strategy::three_step}) {
    for (bool wide : {false, true}) {
      configs.push_back({s, wide, false, !wide});
      if (with_in_place) configs.push_back({s, wide, true, wide});
    }
  }
  return configs;
}

template <class T>
std::string show(const T& x) {
  std::ostringstream os;
  if constexpr (std::is_integral_v<T> && sizeof(T) == 1) {
    os << static_cast<int>(x);
  } else if constexpr (std::is_arithmetic_v<T>) {
    os << x;
  } else {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &x, sizeof(T));
    os << "0x";
    for (std::size_t i = sizeof(T); i-- > 0;) {
      char hex[3];
      std::snprintf(hex, sizeof hex, "%02x", bytes[i]);
      os << hex;
    }
  }
  return os.str();
}

// got[first + i] and want[first + i] have the same bytes for i < count.
template <class T>
::testing::AssertionResult same_items(const std::vector<T>& got, const std::vector<T>& want, std::int64_t count,
                                      std::int64_t got_first = 0, std::int64_t want_first = 0) {
  for (std::int64_t i = 0; i < count; ++i) {
    const T& g = got[static_cast<std::size_t>(got_first + i)];
    const T& w = want[static_cast<std::size_t>(want_first + i)];
    if (std::memcmp(&g, &w, sizeof(T)) != 0) {
      return ::testing::AssertionFailure() << "first mismatch at item " << i << " of " << count << ": got " << show(g)
                                           << ", want " << show(w);
    }
  }
  return ::testing::AssertionSuccess();
}

// Bytes of got[first, end) are all 0xA5 (the poison: nothing was written there).
template <class T>
::testing::AssertionResult still_poisoned(const std::vector<T>& got, std::int64_t first) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(got.data());
  for (std::size_t b = static_cast<std::size_t>(first) * sizeof(T); b < got.size() * sizeof(T); ++b) {
    if (bytes[b] != 0xA5) {
      return ::testing::AssertionFailure() << "item " << b / sizeof(T) << " past the selected ones was written";
    }
  }
  return ::testing::AssertionSuccess();
}

// A device int64 count, poisoned before each run.
class device_count {
 public:
  device_count() : buffer_(1) {}
  std::int64_t* get() { return buffer_.data(); }
  void poison() { buffer_.poison(); }
  std::int64_t value() const { return buffer_.download()[0]; }

 private:
  device_buffer<std::int64_t> buffer_;
};

}  // namespace scankit::testing
