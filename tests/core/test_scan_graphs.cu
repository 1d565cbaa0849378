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

namespace scankit::testing {
namespace {

// ---------------------------------------------------------------------------------------------
// Capture and replay (the same harness as tests/algorithms/test_compact_graphs.cu).

enum class workspace_case { warmed, none, fresh };

const char* to_string(workspace_case c) {
  switch (c) {
    case workspace_case::warmed: return "warmed";
    case workspace_case::none: return "no";
    case workspace_case::fresh: return "fresh";
  }
  return "?";
}

struct graph_case {
  std::int64_t n;
  workspace_case ws;
};

void PrintTo(const graph_case& c, std::ostream* os) { *os << "n = " << c.n << ", " << to_string(c.ws) << " workspace"; }

std::vector<graph_case> all_graph_cases() {
  std::vector<graph_case> cases;
  for (std::int64_t n : {std::int64_t{3'000'017}, std::int64_t{1000}}) {
    for (workspace_case ws : {workspace_case::warmed, workspace_case::none, workspace_case::fresh}) {
      cases.push_back({n, ws});
    }
  }
  return cases;
}

std::string graph_case_name(const ::testing::TestParamInfo<graph_case>& info) {
  return "n" + std::to_string(info.param.n) + "_" + to_string(info.param.ws) + "_workspace";
}

constexpr int graph_replays = 6;

// A non-blocking stream of its own (the legacy stream cannot be captured).
class owned_stream {
 public:
  owned_stream() { SCANKIT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~owned_stream() { (void)cudaStreamDestroy(stream_); }
  owned_stream(const owned_stream&) = delete;
  owned_stream& operator=(const owned_stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// One call captured into a graph and instantiated.
class captured_graph {
 public:
  template <class Enqueue>
  captured_graph(cudaStream_t stream, Enqueue&& enqueue) : stream_(stream) {
    SCANKIT_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      enqueue();
    } catch (...) {
      cudaGraph_t broken = nullptr;
      (void)cudaStreamEndCapture(stream, &broken);  // ends the capture so that the stream stays usable
      if (broken != nullptr) (void)cudaGraphDestroy(broken);
      (void)cudaGetLastError();
      throw;
    }
    SCANKIT_CUDA_CHECK(cudaStreamEndCapture(stream, &graph_));
    const cudaError_t code = cudaGraphInstantiate(&exec_, graph_, 0);
    if (code != cudaSuccess) {
      (void)cudaGraphDestroy(graph_);
      detail::check_cuda(code, "cudaGraphInstantiate(&exec_, graph_, 0)");
    }
  }
  ~captured_graph() {
    if (exec_ != nullptr) (void)cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) (void)cudaGraphDestroy(graph_);
  }
  captured_graph(const captured_graph&) = delete;
  captured_graph& operator=(const captured_graph&) = delete;

  void launch() const { SCANKIT_CUDA_CHECK(cudaGraphLaunch(exec_, stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

// The three callbacks of one algorithm under test:
//   fill_input(n)          new random input into the (captured) input buffers, poisoned outputs,
//                          and the expected result on the host; may use the legacy stream
//   call(stream, ws, n)    the scankit call, enqueued on `stream`
//   check(n)               the outputs against the expected result (EXPECT_* / ASSERT_*)
template <class Fill, class Call, class Check>
struct graph_harness {
  Fill fill_input;
  Call call;
  Check check;
  owned_stream stream{};
  workspace ws{};  // a member of the harness: it outlives every graph of the test

  void eager(const std::string& what, workspace* storage, std::int64_t n) {
    SCOPED_TRACE(what + ", n = " + std::to_string(n));
    fill_input(n);
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());  // the uploads and the poisoning are done
    call(stream.get(), storage, n);
    SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    check(n);
  }

  void replay(const captured_graph& graph, const std::string& what, std::int64_t n) {
    SCOPED_TRACE(what + ", n = " + std::to_string(n));
    fill_input(n);
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    graph.launch();
    SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    check(n);
  }

  std::unique_ptr<captured_graph> capture(workspace* storage, std::int64_t n) {
    return std::make_unique<captured_graph>(stream.get(), [&] { call(stream.get(), storage, n); });
  }
};

template <class Fill, class Call, class Check>
graph_harness<Fill, Call, Check> make_harness(Fill fill_input, Call call, Check check) {
  return {std::move(fill_input), std::move(call), std::move(check)};
}

// Captures call(stream, ws, c.n) once and replays it graph_replays times on new input; then (when
// the captured call was given a workspace) an eager call on that workspace and one more replay.
template <class Fill, class Call, class Check>
void check_graph_replays(const graph_case& c, Fill fill_input, Call call, Check check) {
  auto h = make_harness(std::move(fill_input), std::move(call), std::move(check));
  workspace* const captured_ws = c.ws == workspace_case::none ? nullptr : &h.ws;
  if (c.ws == workspace_case::warmed) {
    h.eager("eager warm-up call before the capture", &h.ws, c.n);
    if (::testing::Test::HasFailure()) return;
  }
  const std::unique_ptr<captured_graph> graph = h.capture(captured_ws, c.n);
  for (int r = 1; r <= graph_replays; ++r) {
    h.replay(*graph, "replay " + std::to_string(r) + " of " + std::to_string(graph_replays), c.n);
    if (::testing::Test::HasFailure()) return;
  }
  if (captured_ws == nullptr) return;
  h.eager("eager call on the captured call's workspace after the replays", &h.ws, c.n);
  if (::testing::Test::HasFailure()) return;
  h.replay(*graph, "replay after that eager call", c.n);
}

// Replays and eager calls of other sizes on one warmed workspace, interleaved.
//
// Expectation (workspace.hpp, "CUDA graphs"): a graph whose captured call used a workspace holds
// that workspace's memory and layout. Eager calls on the same workspace, ordered on the same
// stream, may run between replays as long as the workspace serves them as it is: no growth, no
// new layout of its state region (no re-zeroing under the graph). That holds here because the
// workspace was warmed by the captured size and every eager call is smaller (or needs no
// workspace at all). The eager calls and the replays then share the tile-state slots and the
// ticket word; the launch epochs, decided on the device, keep their statuses apart. An eager call
// that needs more memory than the workspace holds reallocates it under the graph: not supported,
// not tested.
template <class Fill, class Call, class Check>
void check_graph_between_eager_calls(std::int64_t graph_n, const std::vector<std::int64_t>& eager_sizes,
                                     Fill fill_input, Call call, Check check) {
  auto h = make_harness(std::move(fill_input), std::move(call), std::move(check));
  h.eager("eager warm-up call of the captured size", &h.ws, graph_n);
  if (::testing::Test::HasFailure()) return;
  const std::unique_ptr<captured_graph> graph = h.capture(&h.ws, graph_n);
  h.replay(*graph, "first replay", graph_n);
  for (std::size_t i = 0; i < eager_sizes.size(); ++i) {
    if (::testing::Test::HasFailure()) return;
    h.eager("eager call " + std::to_string(i + 1) + " between replays", &h.ws, eager_sizes[i]);
    if (::testing::Test::HasFailure()) return;
    h.replay(*graph, "replay after eager call " + std::to_string(i + 1), graph_n);
  }
}

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
