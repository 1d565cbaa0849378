// Choices a caller can make about how a compaction runs, and the built-in functors of the
// compaction API. Plain C++: usable from g++-compiled code; the functors are also device code
// under nvcc.
#pragma once

#include <cstdint>
#include <string>

#include "scankit/operators.hpp"  // SCANKIT_HOST_DEVICE

namespace scankit {

// Whole-array strategy of select, partition and unique.
enum class compact_strategy {
  automatic,    // single_pass
  single_pass,  // one pass: tiles count their selected items, look back for their offset, scatter
  three_step    // the textbook version: flag every item; exclusive scan of the flags; scatter
};

struct compact_options {
  compact_strategy strategy = compact_strategy::automatic;
  // The three-step strategy scans 32-bit offsets while n < 2^32 and 64-bit offsets above; setting
  // this takes the 64-bit scan for any n (for tests and the lab). The single pass always counts in
  // 64 bits (its tile state), so it ignores this.
  bool force_64bit_offsets = false;
};

const char* to_string(compact_strategy s) noexcept;
// Parses the names printed by to_string; throws scankit::error on an unknown name.
compact_strategy parse_compact_strategy(const std::string& name);

// ---- Built-in functors ----------------------------------------------------------------------

// Keeps x with lo <= x <= hi (a closed interval; empty when hi < lo). NaN is never in range.
template <class T>
struct keep_in_range {
  T lo;
  T hi;
  SCANKIT_HOST_DEVICE bool operator()(const T& x) const { return lo <= x && x <= hi; }
};

// Keeps every value that is not NaN (do not compile the caller with fast-math).
template <class T>
struct keep_not_nan {
  SCANKIT_HOST_DEVICE bool operator()(const T& x) const { return x == x; }
};

// Keeps the items whose flag converts to true (select_flagged).
struct flag_is_set {
  template <class F>
  SCANKIT_HOST_DEVICE bool operator()(const F& flag) const {
    return static_cast<bool>(flag);
  }
};

// The default equality of unique: operator== (so +0.0 == -0.0, and NaN equals nothing).
struct equal_to {
  template <class T>
  SCANKIT_HOST_DEVICE bool operator()(const T& a, const T& b) const {
    return a == b;
  }
};

// A 16-byte item for the precompiled select_flagged (any 16-byte payload travels as one).
struct alignas(16) item16 {
  std::uint64_t lo;
  std::uint64_t hi;
  friend SCANKIT_HOST_DEVICE bool operator==(const item16& a, const item16& b) { return a.lo == b.lo && a.hi == b.hi; }
  friend SCANKIT_HOST_DEVICE bool operator!=(const item16& a, const item16& b) { return !(a == b); }
};
static_assert(sizeof(item16) == 16, "item16 must be 16 bytes");

}  // namespace scankit
