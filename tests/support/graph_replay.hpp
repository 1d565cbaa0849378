// Shared test support: one call captured into a CUDA graph and replayed on new input, with a
// warmed workspace, none, or a fresh one (tests/scan/test_scan_graphs.cu,
// tests/compact/test_compact_graphs.cu).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "scankit/error.hpp"
#include "scankit/workspace.hpp"

namespace scankit::testing {

// ---------------------------------------------------------------------------------------------
// Capture and replay.

enum class workspace_case { warmed, none, fresh };

inline const char* to_string(workspace_case c) {
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

inline void PrintTo(const graph_case& c, std::ostream* os) { *os << "n = " << c.n << ", " << to_string(c.ws) << " workspace"; }

inline std::vector<graph_case> all_graph_cases() {
  std::vector<graph_case> cases;
  for (std::int64_t n : {std::int64_t{3'000'017}, std::int64_t{1000}}) {
    for (workspace_case ws : {workspace_case::warmed, workspace_case::none, workspace_case::fresh}) {
      cases.push_back({n, ws});
    }
  }
  return cases;
}

inline std::string graph_case_name(const ::testing::TestParamInfo<graph_case>& info) {
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

}  // namespace scankit::testing
