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
#include "support/gpu_test.hpp"

namespace scankit::testing {
namespace {

// ---------------------------------------------------------------------------------------------
// Capture and replay (the same harness as tests/core/test_scan_graphs.cu).

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

template <class T>
std::string show(const T& x) {
  std::ostringstream os;
  if constexpr (std::is_arithmetic_v<T>) {
    os << +x;
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

// got[got_first + i] and want[want_first + i] have the same bytes for i < count.
template <class T>
::testing::AssertionResult same_items(const std::vector<T>& got, const std::vector<T>& want, std::int64_t count,
                                      std::int64_t got_first = 0, std::int64_t want_first = 0) {
  for (std::int64_t i = 0; i < count; ++i) {
    const T& g = got[static_cast<std::size_t>(got_first + i)];
    const T& w = want[static_cast<std::size_t>(want_first + i)];
    if (std::memcmp(&g, &w, sizeof(T)) != 0) {
      return ::testing::AssertionFailure() << "first mismatch at item " << got_first + i << " (" << i << " of "
                                           << count << "): got " << show(g) << ", want " << show(w);
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
      return ::testing::AssertionFailure() << "item " << b / sizeof(T) << " lies past the " << from
                                           << " written ones but was written";
    }
  }
  return ::testing::AssertionSuccess();
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
  EXPECT_TRUE(poisoned_from(got, k));
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
    EXPECT_TRUE(poisoned_from(got, n));
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
