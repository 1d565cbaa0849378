// CUDA-graph safety of the compaction entry points of the precompiled API (select_if,
// select_flagged, select_by_stencil, partition_if in both forms, unique, unique_by_key; the
// *_count_host variants synchronise and cannot be captured). One call is captured into a graph
// (cudaStreamBeginCapture in thread-local mode) and the graph is replayed again and again, each
// time on new random input written into the captured input buffers, with poisoned outputs and a
// poisoned device count, and checked against the host references (scankit::reference). The
// single pass must not fix on the host at capture time anything that tags a launch (the epoch of
// the tile statuses, the ticket counter): a replay that reused the capture's epoch would read the
// counts its previous replay left behind as if they were its own.
//
// The captured call gets its temporary storage in one of three ways (the test's parameter):
//   warmed  a scankit::workspace that an eager call of the same size laid out before the capture
//   none    ws == nullptr: the library allocates and frees stream-ordered, which inside a graph
//           become graph nodes; the graph must stay launchable again and again
//   fresh   a never-used scankit::workspace: after the capture the workspace must still serve
//           eager calls, and the graph must still replay
// Sizes: 3,000,017 items (hundreds of tiles: the look-back runs) and 1000 (a single tile).
// Every case also interleaves eager calls with replays (an eager call on the workspace after
// the replays, then one more replay); CompactGraphBetweenEagerCalls does so with eager calls of
// other sizes on the captured workspace.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "scankit/compact.hpp"
#include "scankit/compact_options.hpp"
#include "scankit/error.hpp"
#include "scankit/reference/compact_reference.hpp"
#include "scankit/workspace.hpp"
#include "compact_test_util.cuh"
#include "support/gpu_test.hpp"
#include "support/graph_replay.hpp"

namespace scankit::testing {
namespace {

// ---------------------------------------------------------------------------------------------
// Inputs and comparisons.

// Random bits for any trivially copyable type.
template <class T>
std::vector<T> random_bits(std::int64_t n, std::mt19937_64& rng) {
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

template <class T>
std::vector<T> uniform_ints(std::int64_t n, long long lo, long long hi, std::mt19937_64& rng) {
  std::uniform_int_distribution<long long> d(lo, hi);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = static_cast<T>(d(rng));
  return v;
}

template <class T>
std::vector<T> uniform_reals(std::int64_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<T> d(T(-1), T(1));
  std::vector<T> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = d(rng);
  return v;
}

// 0 or 1, about half of each.
inline std::vector<std::uint8_t> random_flags(std::int64_t n, std::mt19937_64& rng) {
  std::vector<std::uint8_t> v(static_cast<std::size_t>(n));
  for (auto& f : v) f = static_cast<std::uint8_t>(rng() & 1u);
  return v;
}

// Runs of equal values (a new value with probability 1/3), for unique.
template <class T>
std::vector<T> runs_of(std::int64_t n, std::mt19937_64& rng) {
  std::vector<T> v(static_cast<std::size_t>(n));
  T current = static_cast<T>(rng() % 1000);
  for (auto& x : v) {
    if (rng() % 3 == 0) current = static_cast<T>(rng() % 1000);
    x = current;
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// The compactions under test: each holds its device buffers (sized for `capacity` items, reused
// by every replay) and offers fill_input(n), call(stream, ws, n) and check(n).

class compaction_subject {
 protected:
  explicit compaction_subject(std::uint64_t seed) : rng_(seed) {}

  // The selected count the call wrote; a fatal failure when it differs from `want`.
  ::testing::AssertionResult count_is(std::int64_t want) const {
    const std::int64_t got = d_count_.download()[0];
    if (got == want) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "device count " << got << ", want " << want;
  }

  std::mt19937_64 rng_;
  device_buffer<std::int64_t> d_count_{1};
};

// out[0, k) == want[0, k), where k = want.size(), and nothing written past it.
template <class T>
void expect_selection(const device_buffer<T>& out, const std::vector<T>& want) {
  const std::vector<T> got = out.download();
  const auto k = static_cast<std::int64_t>(want.size());
  EXPECT_TRUE(same_items(got, want, k));
  EXPECT_TRUE(still_poisoned(got, k));
}

// select_if, keep_in_range on int32 (in place: out == in; the items past the count stay as they were).
template <bool InPlace>
class select_if_int32 : compaction_subject {
 public:
  select_if_int32(std::int64_t capacity, std::uint64_t seed)
      : compaction_subject(seed), in_(static_cast<std::size_t>(capacity)), out_(InPlace ? 0 : in_.size()) {}

  void fill_input(std::int64_t n) {
    host_in_ = uniform_ints<std::int32_t>(n, -1000, 1000, rng_);
    out().poison();
    in_.upload(host_in_);
    d_count_.poison();
    want_.resize(host_in_.size());
    want_.resize(static_cast<std::size_t>(scankit::reference::select_if(host_in_.data(), want_.data(), n, pred)));
  }
  void call(cudaStream_t stream, workspace* ws, std::int64_t n) {
    scankit::select_if(in_.data(), out().data(), d_count_.data(), n, pred, stream, ws);
  }
  void check(std::int64_t n) {
    const auto k = static_cast<std::int64_t>(want_.size());
    ASSERT_TRUE(count_is(k));
    if (!InPlace) return expect_selection(out_, want_);
    const std::vector<std::int32_t> got = in_.download();
    EXPECT_TRUE(same_items(got, want_, k));
    EXPECT_TRUE(same_items(got, host_in_, n - k, k, k)) << "the items past the count";
    EXPECT_TRUE(still_poisoned(got, n));
  }

 private:
  static constexpr keep_in_range<std::int32_t> pred{-500, 250};
  device_buffer<std::int32_t>& out() { return InPlace ? in_ : out_; }
  device_buffer<std::int32_t> in_, out_;
  std::vector<std::int32_t> host_in_, want_;
};

// select_if, keep_not_nan on float (about one NaN in eight, with assorted payloads).
class select_if_not_nan_float : compaction_subject {
 public:
  select_if_not_nan_float(std::int64_t capacity, std::uint64_t seed)
      : compaction_subject(seed), in_(static_cast<std::size_t>(capacity)), out_(in_.size()) {}

  void fill_input(std::int64_t n) {
    host_in_ = uniform_reals<float>(n, rng_);
    for (float& x : host_in_) {
      if (rng_() % 8 == 0) {
        std::uint32_t bits = 0x7fc00000u | (static_cast<std::uint32_t>(rng_()) & 0x803fffffu);
        std::memcpy(&x, &bits, sizeof bits);
      }
    }
    out_.poison();
    in_.upload(host_in_);
    d_count_.poison();
    want_.resize(host_in_.size());
    want_.resize(static_cast<std::size_t>(
        scankit::reference::select_if(host_in_.data(), want_.data(), n, keep_not_nan<float>{})));
  }
  void call(cudaStream_t stream, workspace* ws, std::int64_t n) {
    scankit::select_if(in_.data(), out_.data(), d_count_.data(), n, keep_not_nan<float>{}, stream, ws);
  }
  void check(std::int64_t) {
    ASSERT_TRUE(count_is(static_cast<std::int64_t>(want_.size())));
    expect_selection(out_, want_);
  }

 private:
  device_buffer<float> in_, out_;
  std::vector<float> host_in_, want_;
};

// select_flagged: T items, F flags (uint8_t or bool, 0 or 1).
template <class T, class F>
class select_flagged_subject : compaction_subject {
 public:
  select_flagged_subject(std::int64_t capacity, std::uint64_t seed)
      : compaction_subject(seed),
        in_(static_cast<std::size_t>(capacity)),
        flags_(in_.size()),
        out_(in_.size()) {}

  void fill_input(std::int64_t n) {
    host_in_ = random_bits<T>(n, rng_);
    host_flags_ = random_flags(n, rng_);
    out_.poison();
    in_.upload(host_in_);
    flags_.upload(host_flags_);
    d_count_.poison();
    want_.resize(host_in_.size());
    want_.resize(static_cast<std::size_t>(
        scankit::reference::select_flagged(host_in_.data(), host_flags_.data(), want_.data(), n)));
  }
  void call(cudaStream_t stream, workspace* ws, std::int64_t n) {
    scankit::select_flagged(in_.data(), flags(flags_.data()), out_.data(), d_count_.data(), n, stream, ws);
  }
  void check(std::int64_t) {
    ASSERT_TRUE(count_is(static_cast<std::int64_t>(want_.size())));
    expect_selection(out_, want_);
  }

 private:
  // The device flags as F: bytes of 0 and 1 are valid bools. (The host reference reads them as bytes.)
  static const F* flags(const std::uint8_t* bytes) { return reinterpret_cast<const F*>(bytes); }
  device_buffer<T> in_;
  device_buffer<std::uint8_t> flags_;
  device_buffer<T> out_;
  std::vector<T> host_in_, want_;
  std::vector<std::uint8_t> host_flags_;
};

// select_by_stencil: int32 items kept where a float stencil is in [-0.25, 0.5].
class select_by_stencil_int32_float : compaction_subject {
 public:
  select_by_stencil_int32_float(std::int64_t capacity, std::uint64_t seed)
      : compaction_subject(seed),
        in_(static_cast<std::size_t>(capacity)),
        stencil_(in_.size()),
        out_(in_.size()) {}

  void fill_input(std::int64_t n) {
    host_in_ = random_bits<std::int32_t>(n, rng_);
    host_stencil_ = uniform_reals<float>(n, rng_);
    out_.poison();
    in_.upload(host_in_);
    stencil_.upload(host_stencil_);
    d_count_.poison();
    want_.resize(host_in_.size());
    want_.resize(static_cast<std::size_t>(
        scankit::reference::select_by_stencil(host_in_.data(), host_stencil_.data(), want_.data(), n, pred)));
  }
  void call(cudaStream_t stream, workspace* ws, std::int64_t n) {
    scankit::select_by_stencil(in_.data(), stencil_.data(), out_.data(), d_count_.data(), n, pred, stream, ws);
  }
  void check(std::int64_t) {
    ASSERT_TRUE(count_is(static_cast<std::int64_t>(want_.size())));
    expect_selection(out_, want_);
  }

 private:
  static constexpr keep_in_range<float> pred{-0.25f, 0.5f};
  device_buffer<std::int32_t> in_;
  device_buffer<float> stencil_;
  device_buffer<std::int32_t> out_;
  std::vector<std::int32_t> host_in_, want_;
  std::vector<float> host_stencil_;
};

// partition_if into one array (uint32): selected first, then the rejected in reverse order.
class partition_one_array_uint32 : compaction_subject {
 public:
  partition_one_array_uint32(std::int64_t capacity, std::uint64_t seed)
      : compaction_subject(seed), in_(static_cast<std::size_t>(capacity)), out_(in_.size()) {}

  void fill_input(std::int64_t n) {
    host_in_ = uniform_ints<std::uint32_t>(n, 0, 9999, rng_);
    out_.poison();
    in_.upload(host_in_);
    d_count_.poison();
    want_.resize(host_in_.size());
    want_count_ = scankit::reference::partition_if(host_in_.data(), want_.data(), n, pred);
  }
  void call(cudaStream_t stream, workspace* ws, std::int64_t n) {
    scankit::partition_if(in_.data(), out_.data(), d_count_.data(), n, pred, stream, ws);
  }
  void check(std::int64_t) {
    ASSERT_TRUE(count_is(want_count_));
    expect_selection(out_, want_);  // all n items
  }

 private:
  static constexpr keep_in_range<std::uint32_t> pred{2000, 6999};
  device_buffer<std::uint32_t> in_, out_;
  std::vector<std::uint32_t> host_in_, want_;
  std::int64_t want_count_ = 0;
};

// partition_if into two arrays (float): both parts in input order.
class partition_two_arrays_float : compaction_subject {
 public:
  partition_two_arrays_float(std::int64_t capacity, std::uint64_t seed)
      : compaction_subject(seed),
        in_(static_cast<std::size_t>(capacity)),
        selected_(in_.size()),
        rejected_(in_.size()) {}

  void fill_input(std::int64_t n) {
    host_in_ = uniform_reals<float>(n, rng_);
    selected_.poison();
    rejected_.poison();
    in_.upload(host_in_);
    d_count_.poison();
    want_selected_.resize(host_in_.size());
    want_rejected_.resize(host_in_.size());
    const std::int64_t k =
        scankit::reference::partition_if(host_in_.data(), want_selected_.data(), want_rejected_.data(), n, pred);
    want_selected_.resize(static_cast<std::size_t>(k));
    want_rejected_.resize(static_cast<std::size_t>(n - k));
  }
  void call(cudaStream_t stream, workspace* ws, std::int64_t n) {
    scankit::partition_if(in_.data(), selected_.data(), rejected_.data(), d_count_.data(), n, pred, stream, ws);
  }
  void check(std::int64_t) {
    ASSERT_TRUE(count_is(static_cast<std::int64_t>(want_selected_.size())));
    {
      SCOPED_TRACE("out_selected");
      expect_selection(selected_, want_selected_);
    }
    SCOPED_TRACE("out_rejected");
    expect_selection(rejected_, want_rejected_);
  }

 private:
  static constexpr keep_in_range<float> pred{-0.5f, 0.25f};
  device_buffer<float> in_, selected_, rejected_;
  std::vector<float> host_in_, want_selected_, want_rejected_;
};

// unique on int64.
class unique_int64 : compaction_subject {
 public:
  unique_int64(std::int64_t capacity, std::uint64_t seed)
      : compaction_subject(seed), in_(static_cast<std::size_t>(capacity)), out_(in_.size()) {}

  void fill_input(std::int64_t n) {
    host_in_ = runs_of<std::int64_t>(n, rng_);
    out_.poison();
    in_.upload(host_in_);
    d_count_.poison();
    want_.resize(host_in_.size());
    want_.resize(static_cast<std::size_t>(scankit::reference::unique(host_in_.data(), want_.data(), n)));
  }
  void call(cudaStream_t stream, workspace* ws, std::int64_t n) {
    scankit::unique(in_.data(), out_.data(), d_count_.data(), n, stream, ws);
  }
  void check(std::int64_t) {
    ASSERT_TRUE(count_is(static_cast<std::int64_t>(want_.size())));
    expect_selection(out_, want_);
  }

 private:
  device_buffer<std::int64_t> in_, out_;
  std::vector<std::int64_t> host_in_, want_;
};

// unique_by_key: K keys with runs, V values.
template <class K, class V>
class unique_by_key_subject : compaction_subject {
 public:
  unique_by_key_subject(std::int64_t capacity, std::uint64_t seed)
      : compaction_subject(seed),
        keys_(static_cast<std::size_t>(capacity)),
        values_(keys_.size()),
        keys_out_(keys_.size()),
        values_out_(keys_.size()) {}

  void fill_input(std::int64_t n) {
    host_keys_ = runs_of<K>(n, rng_);
    host_values_ = random_bits<V>(n, rng_);
    keys_out_.poison();
    values_out_.poison();
    keys_.upload(host_keys_);
    values_.upload(host_values_);
    d_count_.poison();
    want_keys_.resize(host_keys_.size());
    want_values_.resize(host_keys_.size());
    const auto k = static_cast<std::size_t>(scankit::reference::unique_by_key(
        host_keys_.data(), host_values_.data(), want_keys_.data(), want_values_.data(), n));
    want_keys_.resize(k);
    want_values_.resize(k);
  }
  void call(cudaStream_t stream, workspace* ws, std::int64_t n) {
    scankit::unique_by_key(keys_.data(), values_.data(), keys_out_.data(), values_out_.data(), d_count_.data(), n,
                           stream, ws);
  }
  void check(std::int64_t) {
    ASSERT_TRUE(count_is(static_cast<std::int64_t>(want_keys_.size())));
    {
      SCOPED_TRACE("keys");
      expect_selection(keys_out_, want_keys_);
    }
    SCOPED_TRACE("values");
    expect_selection(values_out_, want_values_);
  }

 private:
  device_buffer<K> keys_;
  device_buffer<V> values_;
  device_buffer<K> keys_out_;
  device_buffer<V> values_out_;
  std::vector<K> host_keys_, want_keys_;
  std::vector<V> host_values_, want_values_;
};

template <class Subject>
void compact_graph_test(const graph_case& c) {
  SCANKIT_SEEDED(seed);
  Subject s(c.n, seed);
  check_graph_replays(
      c, [&](std::int64_t n) { s.fill_input(n); },
      [&](cudaStream_t stream, workspace* ws, std::int64_t n) { s.call(stream, ws, n); },
      [&](std::int64_t n) { s.check(n); });
}

class CompactGraph : public ::testing::TestWithParam<graph_case> {};

TEST_P(CompactGraph, SelectIfInt32) {
  SCANKIT_REQUIRE_GPU();
  compact_graph_test<select_if_int32<false>>(GetParam());
}

TEST_P(CompactGraph, SelectIfInt32InPlace) {
  SCANKIT_REQUIRE_GPU();
  compact_graph_test<select_if_int32<true>>(GetParam());
}

TEST_P(CompactGraph, SelectIfNotNanFloat) {
  SCANKIT_REQUIRE_GPU();
  compact_graph_test<select_if_not_nan_float>(GetParam());
}

TEST_P(CompactGraph, SelectFlaggedUint32) {
  SCANKIT_REQUIRE_GPU();
  compact_graph_test<select_flagged_subject<std::uint32_t, std::uint8_t>>(GetParam());
}

TEST_P(CompactGraph, SelectFlaggedItem16BoolFlags) {
  SCANKIT_REQUIRE_GPU();
  compact_graph_test<select_flagged_subject<item16, bool>>(GetParam());
}

TEST_P(CompactGraph, SelectByStencilInt32Float) {
  SCANKIT_REQUIRE_GPU();
  compact_graph_test<select_by_stencil_int32_float>(GetParam());
}

TEST_P(CompactGraph, PartitionIfOneArrayUint32) {
  SCANKIT_REQUIRE_GPU();
  compact_graph_test<partition_one_array_uint32>(GetParam());
}

TEST_P(CompactGraph, PartitionIfTwoArraysFloat) {
  SCANKIT_REQUIRE_GPU();
  compact_graph_test<partition_two_arrays_float>(GetParam());
}

TEST_P(CompactGraph, UniqueInt64) {
  SCANKIT_REQUIRE_GPU();
  compact_graph_test<unique_int64>(GetParam());
}

TEST_P(CompactGraph, UniqueByKeyInt32Uint32) {
  SCANKIT_REQUIRE_GPU();
  compact_graph_test<unique_by_key_subject<std::int32_t, std::uint32_t>>(GetParam());
}

TEST_P(CompactGraph, UniqueByKeyUint64Double) {
  SCANKIT_REQUIRE_GPU();
  compact_graph_test<unique_by_key_subject<std::uint64_t, double>>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(SizesAndWorkspaces, CompactGraph, ::testing::ValuesIn(all_graph_cases()), graph_case_name);

// ---------------------------------------------------------------------------------------------
// Graph replays and eager calls of other sizes on one workspace (see
// check_graph_between_eager_calls for what is and is not expected to work).

template <class Subject>
void compact_between_eager_calls_test() {
  SCANKIT_SEEDED(seed);
  constexpr std::int64_t graph_n = 3'000'017;
  const std::vector<std::int64_t> eager_sizes = {1'000'003, 1000, 2'999'999, 65'537};
  Subject s(graph_n, seed);
  check_graph_between_eager_calls(
      graph_n, eager_sizes, [&](std::int64_t n) { s.fill_input(n); },
      [&](cudaStream_t stream, workspace* ws, std::int64_t n) { s.call(stream, ws, n); },
      [&](std::int64_t n) { s.check(n); });
}

TEST(CompactGraphBetweenEagerCalls, SelectIfInt32) {
  SCANKIT_REQUIRE_GPU();
  compact_between_eager_calls_test<select_if_int32<false>>();
}

TEST(CompactGraphBetweenEagerCalls, UniqueByKeyInt32Uint32) {
  SCANKIT_REQUIRE_GPU();
  compact_between_eager_calls_test<unique_by_key_subject<std::int32_t, std::uint32_t>>();
}

}  // namespace
}  // namespace scankit::testing
