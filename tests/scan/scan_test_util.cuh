// Helpers shared by the GPU tests of the scan engine (nvcc only): non-commutative value types,
// oracles (Thrust on the device, the host reference), size lists around the tile size, and
// comparisons that report the first mismatch instead of dumping whole arrays.
#pragma once

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/scan.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <limits>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "scankit/device/scan.cuh"
#include "scankit/device/scan_lab.cuh"
#include "scankit/lab/scan_lab.hpp"
#include "scankit/operators.hpp"
#include "scankit/reference/scan_reference.hpp"
#include "scankit/scan.hpp"
#include "scankit/scan_options.hpp"
#include "scankit/workspace.hpp"
#include "support/gpu_test.hpp"

namespace scankit::testing {

enum class scan_kind { inclusive, exclusive };

inline const char* to_string(scan_kind k) { return k == scan_kind::inclusive ? "inclusive" : "exclusive"; }

// The whole-array strategies a caller can pick explicitly (automatic is decoupled look-back).
inline constexpr scan_strategy explicit_strategies[] = {scan_strategy::three_launch, scan_strategy::reduce_then_scan,
                                                       scan_strategy::chained, scan_strategy::decoupled_look_back};

// A strategy as the tests run it: the deterministic flag matters for the decoupled look-back on
// non-integer values (it then runs the deterministic look-back).
struct strategy_case {
  scan_strategy strategy;
  bool deterministic;
};

inline constexpr strategy_case all_strategy_cases[] = {{scan_strategy::three_launch, false},
                                                       {scan_strategy::reduce_then_scan, false},
                                                       {scan_strategy::chained, false},
                                                       {scan_strategy::decoupled_look_back, false},
                                                       {scan_strategy::decoupled_look_back, true}};

inline scan_options options_for(strategy_case c) {
  scan_options options;
  options.strategy = c.strategy;
  options.deterministic = c.deterministic;
  return options;
}

inline std::string describe(strategy_case c) {
  return std::string("strategy ") + scankit::to_string(c.strategy) + (c.deterministic ? " (deterministic)" : "");
}

inline constexpr block_scan_algorithm all_block_algorithms[] = {
    block_scan_algorithm::automatic, block_scan_algorithm::kogge_stone_double_buffer,
    block_scan_algorithm::kogge_stone_read_sync_write, block_scan_algorithm::brent_kung,
    block_scan_algorithm::warp_of_warps};

inline void sync_device() { SCANKIT_CUDA_CHECK(cudaDeviceSynchronize()); }

// Items of the tuned shape's tile (what the precompiled default path uses for T).
template <class T>
constexpr std::int64_t tuned_tile_items() {
  return scankit::device::resolved_policy<scankit::device::tuned, T>::tile_items;
}

// Tile of the precompiled path for a requested items_per_thread (0: the tuned one).
template <class T>
constexpr std::int64_t precompiled_tile_items(int items_per_thread) {
  return items_per_thread == 0 ? tuned_tile_items<T>()
                               : static_cast<std::int64_t>(scankit::device_detail::scan_tuning<T>::block_threads) *
                                     items_per_thread;
}

// ---------------------------------------------------------------------------------------------
// Exactly associative, non-commutative operators over small structs (wrap-around arithmetic).

// The affine map x -> a*x + b (mod 2^32). op(f, g) = "f, then g" = g o f. The `a` are kept odd
// so that products never collapse to zero.
struct affine32 {
  std::uint32_t a, b;
};
struct compose_affine32 {
  __host__ __device__ affine32 operator()(const affine32& f, const affine32& g) const {
    return affine32{g.a * f.a, g.a * f.b + g.b};
  }
};
inline bool operator==(const affine32& x, const affine32& y) { return x.a == y.a && x.b == y.b; }
inline std::ostream& operator<<(std::ostream& os, const affine32& f) {
  return os << "{a=" << f.a << ", b=" << f.b << "}";
}

inline std::vector<affine32> random_affine32(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<affine32> v(n);
  for (auto& f : v) {
    const std::uint64_t r = rng();
    f.a = static_cast<std::uint32_t>(r) | 1u;
    f.b = static_cast<std::uint32_t>(r >> 32);
  }
  return v;
}

// The same over 64-bit words: a 16-byte value (the largest the staged kernel takes whole).
struct affine64 {
  std::uint64_t a, b;
};
struct compose_affine64 {
  __host__ __device__ affine64 operator()(const affine64& f, const affine64& g) const {
    return affine64{g.a * f.a, g.a * f.b + g.b};
  }
};
inline bool operator==(const affine64& x, const affine64& y) { return x.a == y.a && x.b == y.b; }
inline std::ostream& operator<<(std::ostream& os, const affine64& f) {
  return os << "{a=" << f.a << ", b=" << f.b << "}";
}

inline std::vector<affine64> random_affine64(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<affine64> v(n);
  for (auto& f : v) {
    f.a = rng() | 1u;
    f.b = rng();
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// Printing and comparing.

template <class T>
std::string show(const T& v) {
  std::ostringstream os;
  if constexpr (std::is_floating_point_v<T>) {
    os << std::setprecision(std::numeric_limits<T>::max_digits10) << v;
  } else if constexpr (std::is_arithmetic_v<T>) {
    os << +v;  // int8/uint8 as numbers
  } else {
    os << v;
  }
  return os.str();
}

template <class T>
bool same_value(const T& x, const T& y) {
  return x == y;
}

// expected[0..n) == actual[0..n); on failure names the count and the first differing index.
template <class T>
::testing::AssertionResult equal_ranges(const T* expected, const T* actual, std::int64_t n) {
  std::int64_t mismatches = 0, first = -1;
  for (std::int64_t i = 0; i < n; ++i) {
    if (!same_value(expected[i], actual[i])) {
      if (first < 0) first = i;
      ++mismatches;
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  auto failure = ::testing::AssertionFailure();
  failure << mismatches << " of " << n << " values differ; first at index " << first << ": expected "
          << show(expected[first]) << ", got " << show(actual[first]);
  if (first > 0) failure << " (index " << first - 1 << ": expected " << show(expected[first - 1]) << ", got "
                         << show(actual[first - 1]) << ")";
  return failure;
}

template <class T>
::testing::AssertionResult equal_vectors(const std::vector<T>& expected, const std::vector<T>& actual) {
  if (expected.size() != actual.size()) {
    return ::testing::AssertionFailure() << "sizes differ: " << expected.size() << " vs " << actual.size();
  }
  return equal_ranges(expected.data(), actual.data(), static_cast<std::int64_t>(expected.size()));
}

// Elements [from, to) of `host` still hold device_buffer::poison()'s 0xA5 bytes.
template <class T>
::testing::AssertionResult still_poisoned(const std::vector<T>& host, std::size_t from, std::size_t to) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(host.data());
  for (std::size_t i = from * sizeof(T); i < to * sizeof(T); ++i) {
    if (bytes[i] != 0xA5) {
      return ::testing::AssertionFailure() << "element " << i / sizeof(T)
                                           << " lies outside the output range but was written";
    }
  }
  return ::testing::AssertionSuccess();
}

// Extra elements after the output that no scan may touch.
inline constexpr std::size_t guard_items = 37;

// Copies host values into the beginning of a (larger) device buffer.
template <class T>
void upload_prefix(device_buffer<T>& buffer, const T* host, std::size_t count, std::size_t offset = 0) {
  if (count > 0) {
    SCANKIT_CUDA_CHECK(cudaMemcpy(buffer.data() + offset, host, count * sizeof(T), cudaMemcpyHostToDevice));
  }
}

// ---------------------------------------------------------------------------------------------
// Oracles.

// Thrust on the device input (a different implementation: CUB's scan).
template <class T, class ThrustOp>
std::vector<T> thrust_inclusive_scan(const T* d_in, std::int64_t n, ThrustOp op) {
  device_buffer<T> d_expected(static_cast<std::size_t>(n));
  if (n > 0) thrust::inclusive_scan(thrust::device, d_in, d_in + n, d_expected.data(), op);
  sync_device();
  return d_expected.download();
}

template <class T, class ThrustOp>
std::vector<T> thrust_scan(const T* d_in, std::int64_t n, scan_kind kind, T init, ThrustOp op) {
  device_buffer<T> d_expected(static_cast<std::size_t>(n));
  if (n > 0) {
    if (kind == scan_kind::inclusive) {
      thrust::inclusive_scan(thrust::device, d_in, d_in + n, d_expected.data(), op);
    } else {
      thrust::exclusive_scan(thrust::device, d_in, d_in + n, d_expected.data(), init, op);
    }
  }
  sync_device();
  return d_expected.download();
}

// The host reference (any type, any operator).
template <class T, class Op>
std::vector<T> reference_scan(const T* in, std::int64_t n, scan_kind kind, T init, Op op) {
  std::vector<T> out(static_cast<std::size_t>(n));
  if (kind == scan_kind::inclusive) {
    scankit::reference::inclusive_scan(in, out.data(), n, op);
  } else {
    scankit::reference::exclusive_scan(in, out.data(), n, init, op);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Running scans.

// Options the production scan takes (scankit::inclusive_scan, scankit::device::inclusive_scan);
// the others go to the scan lab (scankit::lab, scankit::device::lab), which runs them all.
inline bool production_options(const scan_options& options) {
  return (options.strategy == scan_strategy::automatic || options.strategy == scan_strategy::decoupled_look_back) &&
         options.items_per_thread == 0 && options.block_algorithm == block_scan_algorithm::automatic;
}

template <class Policy, class T, class Op>
void device_scan(scan_kind kind, const T* in, T* out, std::int64_t n, const T& init, Op op, cudaStream_t stream,
                 workspace* ws, const scan_options& options) {
  const bool production = production_options(options);
  if (kind == scan_kind::inclusive) {
    if (production) {
      scankit::device::inclusive_scan<Policy>(in, out, n, op, stream, ws, options);
    } else {
      scankit::device::lab::inclusive_scan<Policy>(in, out, n, op, stream, ws, options);
    }
  } else {
    if (production) {
      scankit::device::exclusive_scan<Policy>(in, out, n, init, op, stream, ws, options);
    } else {
      scankit::device::lab::exclusive_scan<Policy>(in, out, n, init, op, stream, ws, options);
    }
  }
}

template <class T, class Op, class Policy = scankit::device::tuned>
std::size_t device_workspace_bytes(std::int64_t n, const scan_options& options) {
  return production_options(options) ? scankit::device::scan_workspace_bytes<T, Op, Policy>(n, options)
                                     : scankit::device::lab::scan_workspace_bytes<T, Op, Policy>(n, options);
}

template <class T>
void precompiled_scan(scan_kind kind, const T* in, T* out, std::int64_t n, T init, scan_op op, cudaStream_t stream,
                      workspace* ws, const scan_options& options) {
  const bool production = production_options(options);
  if (kind == scan_kind::inclusive) {
    if (production) {
      scankit::inclusive_scan(in, out, n, op, stream, ws, options);
    } else {
      scankit::lab::inclusive_scan(in, out, n, op, stream, ws, options);
    }
  } else {
    if (production) {
      scankit::exclusive_scan(in, out, n, init, op, stream, ws, options);
    } else {
      scankit::lab::exclusive_scan(in, out, n, init, op, stream, ws, options);
    }
  }
}

template <class T>
std::size_t precompiled_workspace_bytes(std::int64_t n, const scan_options& options) {
  return production_options(options) ? scankit::scan_workspace_bytes(static_cast<const T*>(nullptr), n, options)
                                     : scankit::lab::scan_workspace_bytes(static_cast<const T*>(nullptr), n, options);
}

// ---------------------------------------------------------------------------------------------
// Sizes.

// A number in [lo, hi) that is not a multiple of `tile`.
inline std::int64_t random_non_multiple(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi, std::int64_t tile) {
  std::uniform_int_distribution<std::int64_t> d(lo, hi - 1);
  std::int64_t n = d(rng);
  if (n % tile == 0) n += 1 + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(tile - 1 > 0 ? tile - 1 : 1));
  return n;
}

// 0, 1, 31, 32, 33, tile-1, tile, tile+1, 7*tile+5, 33*tile+3 (a look-back beyond one window of
// 32 tiles), 257*tile+1 (past the first group of 256 tiles of the deterministic look-back) and
// random non-multiples of the tile: one below 300k and one in [300k, max_random).
inline std::vector<std::int64_t> sizes_around_tile(std::int64_t tile, std::uint64_t seed,
                                                   std::int64_t max_random = 3'000'000) {
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> candidates = {0, 1, 31, 32, 33, tile - 1, tile, tile + 1, 7 * tile + 5, 33 * tile + 3};
  if (257 * tile + 1 <= max_random) candidates.push_back(257 * tile + 1);
  const std::int64_t small_hi = std::max<std::int64_t>(300'000, 40 * tile);
  candidates.push_back(random_non_multiple(rng, 34 * tile, small_hi + 34 * tile, tile));
  if (max_random > small_hi) candidates.push_back(random_non_multiple(rng, small_hi, max_random, tile));
  std::vector<std::int64_t> sizes;
  for (std::int64_t n : candidates) {
    if (n >= 0 && std::find(sizes.begin(), sizes.end(), n) == sizes.end()) sizes.push_back(n);
  }
  return sizes;
}

// Log-uniform in [1, max_n].
inline std::int64_t log_uniform_size(std::mt19937_64& rng, std::int64_t max_n) {
  std::uniform_real_distribution<double> d(0.0, std::log(static_cast<double>(max_n)));
  const auto n = static_cast<std::int64_t>(std::exp(d(rng)));
  return std::clamp<std::int64_t>(n, 1, max_n);
}

}  // namespace scankit::testing
