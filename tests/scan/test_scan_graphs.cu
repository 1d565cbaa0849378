// CUDA-graph safety of the single-pass scans of the precompiled API. One call is captured into a
// graph (cudaStreamBeginCapture in thread-local mode) and the graph is replayed again and again,
// each time on new random input written into the captured input buffer and into a poisoned
// output, and checked against the host reference. Nothing that tags a launch (the epoch of the
// tile statuses, the ticket counter) may be fixed on the host at capture time (DESIGN.md, "The
// single-pass engine"): a replay that reused the capture's epoch would read the statuses its
// previous replay left behind as if they were its own.
//
// The captured call gets its temporary storage in one of three ways (the test's parameter):
//   warmed  a scankit::workspace that an eager call of the same size laid out before the capture
//   none    ws == nullptr: the library allocates and frees stream-ordered, which inside a graph
//           become graph nodes; the graph must stay launchable again and again
//   fresh   a never-used scankit::workspace: after the capture the workspace must still serve
//           eager calls, and the graph must still replay
// Sizes: 3,000,017 items (hundreds of tiles: the look-back runs) and 1000 (a single tile).
// Every case also interleaves eager calls with replays (an eager call on the workspace after
// the replays, then one more replay); GraphBetweenEagerCalls does so with eager calls of other
// sizes on the captured workspace.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <iomanip>
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

#include "scankit/error.hpp"
#include "scankit/lab/scan_lab.hpp"
#include "scankit/operators.hpp"
#include "scankit/reference/scan_reference.hpp"
#include "scankit/scan.hpp"
#include "scankit/scan_options.hpp"
#include "scankit/workspace.hpp"
#include "support/gpu_test.hpp"
#include "support/graph_replay.hpp"

namespace scankit::testing {
namespace {

// ---------------------------------------------------------------------------------------------
// Comparisons.

template <class T>
std::string show(const T& v) {
  std::ostringstream os;
  if constexpr (std::is_floating_point_v<T>) {
    os << std::setprecision(std::numeric_limits<T>::max_digits10) << v;
  } else {
    os << +v;  // int8 as a number
  }
  return os.str();
}

// got[0, n) == want[0, n), bit for bit; names the first mismatch.
template <class T>
::testing::AssertionResult same_prefix(const std::vector<T>& want, const std::vector<T>& got, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (std::memcmp(&want[k], &got[k], sizeof(T)) != 0) {
      return ::testing::AssertionFailure() << "first mismatch at index " << i << " of " << n << ": expected "
                                           << show(want[k]) << ", got " << show(got[k]);
    }
  }
  return ::testing::AssertionSuccess();
}

// Every byte of got[from, end) still holds device_buffer::poison()'s 0xA5.
template <class T>
::testing::AssertionResult poisoned_from(const std::vector<T>& got, std::int64_t from) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(got.data());
  for (std::size_t b = static_cast<std::size_t>(from) * sizeof(T); b < got.size() * sizeof(T); ++b) {
    if (bytes[b] != 0xA5) {
      return ::testing::AssertionFailure() << "element " << b / sizeof(T) << " lies past the " << from
                                           << " outputs but was written";
    }
  }
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------------------
// The scans under test.

constexpr std::size_t guard_items = 37;  // past the output: no scan may write there

template <class T>
class scan_subject {
 public:
  scan_subject(bool exclusive, const scan_options& options, bool in_place, std::int64_t capacity, std::uint64_t seed)
      : exclusive_(exclusive),
        in_place_(in_place),
        options_(options),
        in_(static_cast<std::size_t>(capacity) + guard_items),
        out_(in_place ? 0 : static_cast<std::size_t>(capacity) + guard_items),
        rng_(seed) {}

  void fill_input(std::int64_t n) {
    host_in_ = random_values<T>(static_cast<std::size_t>(n), rng_());
    target().poison();
    in_.upload(host_in_);  // in place: the first n elements of the poisoned buffer
    expected_.assign(static_cast<std::size_t>(n), T{});
    if (exclusive_) {
      scankit::reference::exclusive_scan(host_in_.data(), expected_.data(), n, init, plus_op{});
    } else {
      scankit::reference::inclusive_scan(host_in_.data(), expected_.data(), n, plus_op{});
    }
  }

  void call(cudaStream_t stream, workspace* ws, std::int64_t n) {
    // The chained case is the lab's (scankit::lab): its single pass uses the same protocol.
    const bool lab = options_.strategy == scan_strategy::chained;
    if (exclusive_) {
      if (lab) {
        scankit::lab::exclusive_scan(in_.data(), target().data(), n, init, scan_op::plus, stream, ws, options_);
      } else {
        scankit::exclusive_scan(in_.data(), target().data(), n, init, scan_op::plus, stream, ws, options_);
      }
    } else {
      if (lab) {
        scankit::lab::inclusive_scan(in_.data(), target().data(), n, scan_op::plus, stream, ws, options_);
      } else {
        scankit::inclusive_scan(in_.data(), target().data(), n, scan_op::plus, stream, ws, options_);
      }
    }
  }

  void check(std::int64_t n) {
    const std::vector<T> got = target().download();
    EXPECT_TRUE(same_prefix(expected_, got, n));
    EXPECT_TRUE(poisoned_from(got, n));
  }

 private:
  static constexpr T init = static_cast<T>(3);
  device_buffer<T>& target() { return in_place_ ? in_ : out_; }

  bool exclusive_;
  bool in_place_;
  scan_options options_;
  device_buffer<T> in_;
  device_buffer<T> out_;
  std::mt19937_64 rng_;
  std::vector<T> host_in_;
  std::vector<T> expected_;
};

template <class T>
void scan_graph_test(const graph_case& c, bool exclusive, const scan_options& options = {}, bool in_place = false) {
  SCANKIT_SEEDED(seed);
  scan_subject<T> s(exclusive, options, in_place, c.n, seed);
  check_graph_replays(
      c, [&](std::int64_t n) { s.fill_input(n); },
      [&](cudaStream_t stream, workspace* ws, std::int64_t n) { s.call(stream, ws, n); },
      [&](std::int64_t n) { s.check(n); });
}

scan_options deterministic() {
  scan_options options;
  options.deterministic = true;
  return options;
}

scan_options chained() {
  scan_options options;
  options.strategy = scan_strategy::chained;
  return options;
}

class ScanGraph : public ::testing::TestWithParam<graph_case> {};

TEST_P(ScanGraph, InclusiveInt32) {
  SCANKIT_REQUIRE_GPU();
  scan_graph_test<std::int32_t>(GetParam(), false);
}

TEST_P(ScanGraph, ExclusiveInt32) {
  SCANKIT_REQUIRE_GPU();
  scan_graph_test<std::int32_t>(GetParam(), true);
}

TEST_P(ScanGraph, ExclusiveInt32InPlace) {
  SCANKIT_REQUIRE_GPU();
  scan_graph_test<std::int32_t>(GetParam(), true, {}, true);
}

// The chained scan is single-pass too (each tile waits for its predecessor's status).
TEST_P(ScanGraph, InclusiveInt32Chained) {
  SCANKIT_REQUIRE_GPU();
  scan_graph_test<std::int32_t>(GetParam(), false, chained());
}

TEST_P(ScanGraph, InclusiveFloatDeterministic) {
  SCANKIT_REQUIRE_GPU();
  scan_graph_test<float>(GetParam(), false, deterministic());
}

TEST_P(ScanGraph, ExclusiveFloatDeterministic) {
  SCANKIT_REQUIRE_GPU();
  scan_graph_test<float>(GetParam(), true, deterministic());
}

TEST_P(ScanGraph, InclusiveInt64) {
  SCANKIT_REQUIRE_GPU();
  scan_graph_test<std::int64_t>(GetParam(), false);
}

TEST_P(ScanGraph, ExclusiveInt64) {
  SCANKIT_REQUIRE_GPU();
  scan_graph_test<std::int64_t>(GetParam(), true);
}

TEST_P(ScanGraph, InclusiveInt8) {
  SCANKIT_REQUIRE_GPU();
  scan_graph_test<std::int8_t>(GetParam(), false);
}

TEST_P(ScanGraph, ExclusiveInt8) {
  SCANKIT_REQUIRE_GPU();
  scan_graph_test<std::int8_t>(GetParam(), true);
}

INSTANTIATE_TEST_SUITE_P(SizesAndWorkspaces, ScanGraph, ::testing::ValuesIn(all_graph_cases()), graph_case_name);

// ---------------------------------------------------------------------------------------------
// Graph replays and eager calls of other sizes on one workspace (see
// check_graph_between_eager_calls for what is and is not expected to work).

template <class T>
void scan_between_eager_calls_test(bool exclusive, const scan_options& options = {}) {
  SCANKIT_SEEDED(seed);
  constexpr std::int64_t graph_n = 3'000'017;
  const std::vector<std::int64_t> eager_sizes = {1'000'003, 1000, 2'999'999, 65'537};
  scan_subject<T> s(exclusive, options, false, graph_n, seed);
  check_graph_between_eager_calls(
      graph_n, eager_sizes, [&](std::int64_t n) { s.fill_input(n); },
      [&](cudaStream_t stream, workspace* ws, std::int64_t n) { s.call(stream, ws, n); },
      [&](std::int64_t n) { s.check(n); });
}

TEST(ScanGraphBetweenEagerCalls, InclusiveInt32) {
  SCANKIT_REQUIRE_GPU();
  scan_between_eager_calls_test<std::int32_t>(false);
}

TEST(ScanGraphBetweenEagerCalls, ExclusiveInt64) {  // two state slots per tile
  SCANKIT_REQUIRE_GPU();
  scan_between_eager_calls_test<std::int64_t>(true);
}

TEST(ScanGraphBetweenEagerCalls, InclusiveFloatDeterministic) {
  SCANKIT_REQUIRE_GPU();
  scan_between_eager_calls_test<float>(false, deterministic());
}

}  // namespace
}  // namespace scankit::testing
