// The caller's memory: every device allocation of scankit goes through a device_memory_resource.
// A counting resource that allocates from its own CUDA pool stands in for a user allocator, so the
// device's default pool can witness any allocation that bypassed it (its high-water mark must not
// move). Also: every byte comes back, destructors return memory stream-ordered without waiting for
// the device (a host function keeps the stream busy while the objects are destroyed), and calls
// captured into a CUDA graph take their temporaries from graph memory nodes.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>

#include "scankit/compact.hpp"
#include "scankit/device_buffer.hpp"
#include "scankit/graph/bfs.hpp"
#include "scankit/graph/pagerank.hpp"
#include "scankit/memory_resource.hpp"
#include "scankit/sampling.hpp"
#include "scankit/scan.hpp"
#include "scankit/segmented_sort.hpp"
#include "scankit/sort.hpp"
#include "scankit/sparse/csr_build.hpp"
#include "scankit/sparse/generators.hpp"
#include "scankit/sparse/spmv.hpp"
#include "scankit/top_k.hpp"
#include "scankit/workspace.hpp"
#include "support/gpu_test.hpp"
#include "support/graph_replay.hpp"  // owned_stream

namespace scankit::testing {
namespace {

// Counts what it hands out; allocates from a pool of its own.
class counting_resource final : public device_memory_resource {
 public:
  counting_resource() {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    SCANKIT_CUDA_CHECK(cudaMemPoolCreate(&pool_, &props));
  }
  ~counting_resource() override { (void)cudaMemPoolDestroy(pool_); }

  void* allocate(std::size_t bytes, cudaStream_t stream) override {
    EXPECT_GT(bytes, 0u) << "scankit asked for 0 bytes";
    void* p = nullptr;
    SCANKIT_CUDA_CHECK(cudaMallocFromPoolAsync(&p, bytes, pool_, stream));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 256, 0u);
    allocations += 1;
    live_bytes += static_cast<long long>(bytes);
    return p;
  }
  void deallocate(void* memory, std::size_t bytes, cudaStream_t stream) noexcept override {
    (void)cudaFreeAsync(memory, stream);
    deallocations += 1;
    live_bytes -= static_cast<long long>(bytes);
    const std::lock_guard<std::mutex> lock(mutex_);
    last_free_stream_ = stream;
  }
  cudaStream_t last_free_stream() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return last_free_stream_;
  }

  std::atomic<long long> allocations{0};
  std::atomic<long long> deallocations{0};
  std::atomic<long long> live_bytes{0};

 private:
  cudaMemPool_t pool_ = nullptr;
  std::mutex mutex_;
  cudaStream_t last_free_stream_ = nullptr;
};

// The same counting resource reached through plain callbacks, as a C API or Python would.
void* counting_allocate(void* context, std::size_t bytes, cudaStream_t stream) {
  return static_cast<counting_resource*>(context)->allocate(bytes, stream);
}
void counting_deallocate(void* context, void* memory, std::size_t bytes, cudaStream_t stream) {
  static_cast<counting_resource*>(context)->deallocate(memory, bytes, stream);
}

// Makes `r` the default resource for one scope.
class default_resource_guard {
 public:
  explicit default_resource_guard(device_memory_resource* r) : previous_(set_default_resource(r)) {}
  ~default_resource_guard() { set_default_resource(previous_); }
  default_resource_guard(const default_resource_guard&) = delete;
  default_resource_guard& operator=(const default_resource_guard&) = delete;

 private:
  device_memory_resource* previous_;
};

// The device's current pool (what cudaMallocAsync uses): its high-water mark, reset to what is in
// use now, shows whether anything allocated from it since.
class pool_witness {
 public:
  pool_witness() {
    SCANKIT_CUDA_CHECK(cudaDeviceGetMemPool(&pool_, 0));
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    SCANKIT_CUDA_CHECK(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrUsedMemCurrent, &used_before_));
    std::uint64_t zero = 0;
    SCANKIT_CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrUsedMemHigh, &zero));
  }
  std::uint64_t high_water() const {
    std::uint64_t high = 0;
    SCANKIT_CUDA_CHECK(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrUsedMemHigh, &high));
    return high;
  }
  std::uint64_t used_before() const { return used_before_; }

 private:
  cudaMemPool_t pool_ = nullptr;
  std::uint64_t used_before_ = 0;
};

sparse::coo_matrix_host<std::int32_t, float> small_graph() { return sparse::poisson_2d<std::int32_t, float>(40); }

std::vector<std::int32_t> host_inclusive_sum(const std::vector<std::int32_t>& in) {
  std::vector<std::int32_t> out(in.size());
  std::partial_sum(in.begin(), in.end(), out.begin());
  return out;
}

// Every module that allocates, once, on `stream`: calls without a workspace, with one, and the
// objects that own memory. Checks a few results; the module tests check the rest.
void run_every_allocating_call(cudaStream_t stream, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::int64_t n = 100'003;
  std::vector<std::int32_t> values(static_cast<std::size_t>(n));
  for (auto& v : values) v = static_cast<std::int32_t>(rng() % 1000);
  device_buffer<std::int32_t> in(values), out(static_cast<std::size_t>(n));
  std::vector<std::uint8_t> keep(static_cast<std::size_t>(n));
  for (auto& k : keep) k = static_cast<std::uint8_t>(rng() & 1);
  device_buffer<std::uint8_t> flags(keep);
  device_buffer<std::int64_t> count(1);
  device_buffer<std::uint32_t> keys(static_cast<std::size_t>(n)), sorted(static_cast<std::size_t>(n));
  device_buffer<std::int32_t> indices(static_cast<std::size_t>(n));
  SCANKIT_CUDA_CHECK(cudaMemcpy(keys.data(), in.data(), static_cast<std::size_t>(n) * 4, cudaMemcpyDeviceToDevice));

  inclusive_scan(in.data(), out.data(), n, scan_op::plus, stream);  // temporary storage
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
  EXPECT_EQ(out.download(), host_inclusive_sum(values));
  {
    workspace ws;  // from the default resource
    inclusive_scan(in.data(), out.data(), n, scan_op::plus, stream, &ws);
    sort_keys(keys.data(), sorted.data(), n, stream, &ws);
    select_flagged(in.data(), flags.data(), out.data(), count.data(), n, stream, &ws);
    SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  sort_pairs(keys.data(), sorted.data(), in.data(), out.data(), n, stream);
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<std::uint32_t> expected(values.begin(), values.end());
  std::stable_sort(expected.begin(), expected.end());
  EXPECT_EQ(sorted.download(), expected);
  EXPECT_EQ(select_flagged_count_host(in.data(), flags.data(), out.data(), n, stream),
            std::count(keep.begin(), keep.end(), std::uint8_t{1}));

  const std::vector<std::int32_t> offsets = {0, 10, 10, 5000, static_cast<std::int32_t>(n)};
  device_buffer<std::int32_t> d_offsets(offsets);
  segmented_sort_keys(keys.data(), sorted.data(), n, d_offsets.data(), 4, stream);
  top_k(keys.data(), 1, n, 50, sorted.data(), indices.data(), stream);

  // Objects that own memory.
  const auto coo = small_graph();
  device_buffer<std::int32_t> rows(coo.row), cols(coo.col);
  device_buffer<float> weights(coo.value);
  const auto nnz = static_cast<std::int64_t>(coo.value.size());
  sparse::device_csr<std::int32_t, float> a =
      sparse::coo_to_csr(rows.data(), cols.data(), weights.data(), nnz, coo.rows, coo.cols, stream);
  const sparse::device_csr<std::int32_t, float> at = sparse::transpose(a, stream);
  sparse::spmv_options transposed;
  transposed.operation = sparse::spmv_operation::transpose;
  const sparse::spmv_plan<std::int32_t, float> plan(a, {}, stream);
  const sparse::spmv_plan<std::int32_t, float> plan_t(a, transposed, stream);
  device_buffer<float> x(static_cast<std::size_t>(coo.cols)), y(static_cast<std::size_t>(coo.rows));
  SCANKIT_CUDA_CHECK(cudaMemset(x.data(), 0, x.size() * sizeof(float)));
  sparse::spmv(plan, 1.0f, {x.data(), coo.cols}, 0.0f, {y.data(), coo.rows}, stream);
  sparse::spmv(1.0f, sparse::csr_view<std::int32_t, float>(a), {x.data(), coo.cols}, 0.0f, {y.data(), coo.rows},
               stream);
  device_buffer<std::int32_t> levels(static_cast<std::size_t>(coo.rows));
  const graph::bfs_result bfs = graph::breadth_first_search(a, 0, levels.data(), stream);
  EXPECT_EQ(bfs.reached, static_cast<std::int64_t>(coo.rows));
  const graph::pagerank_plan<std::int32_t, float> ranking(a, stream);
  device_buffer<float> rank(static_cast<std::size_t>(coo.rows));
  EXPECT_TRUE(ranking.run(rank.data(), {}, stream).converged);

  device_buffer<float> bin_weights(std::vector<float>(1000, 1.0f));
  device_buffer<std::int32_t> draws(4096);
  sampling_table table;
  build_sampling_table(bin_weights.data(), 1000, table, stream);
  sample(table, draws.data(), 4096, seed, 0, stream);
  alias_table aliases;
  build_alias_table(bin_weights.data(), 1000, aliases, stream);
  sample(aliases, draws.data(), 4096, seed, 0, stream);
  table.check_host(stream);
  aliases.check_host(stream);
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
}

TEST(MemoryResource, CallbackResourceRefusesNullFunctions) {
  EXPECT_THROW(callback_resource(nullptr, counting_deallocate), scankit::error);
  EXPECT_THROW(callback_resource(counting_allocate, nullptr), scankit::error);
}

TEST(MemoryResource, AnAllocatorThatReturnsNullIsOutOfMemory) {
  callback_resource empty([](void*, std::size_t, cudaStream_t) -> void* { return nullptr; },
                          [](void*, void*, std::size_t, cudaStream_t) {});
  try {
    scankit::device_buffer b(64, nullptr, &empty);
    ADD_FAILURE() << "no exception";
  } catch (const cuda_error& e) {
    EXPECT_EQ(e.code(), cudaErrorMemoryAllocation);
    EXPECT_NE(std::string(e.what()).find("64 bytes"), std::string::npos) << e.what();
  }
  // Zero bytes ask the resource for nothing.
  const scankit::device_buffer none(0, nullptr, &empty);
  EXPECT_EQ(none.data(), nullptr);
}

TEST(MemoryResource, SetDefaultReturnsThePreviousOne) {
  device_memory_resource* built_in = default_resource();
  ASSERT_NE(built_in, nullptr);
  callback_resource mine(counting_allocate, counting_deallocate, nullptr);
  EXPECT_EQ(set_default_resource(&mine), built_in);
  EXPECT_EQ(default_resource(), &mine);
  const workspace ws;  // takes the default of the moment
  EXPECT_EQ(ws.resource(), &mine);
  EXPECT_EQ(set_default_resource(nullptr), &mine);
  EXPECT_EQ(default_resource(), built_in);
  EXPECT_EQ(ws.resource(), &mine);
}

TEST(MemoryResource, EveryByteComesFromTheDefaultResourceAndReturns) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  counting_resource counting;
  const owned_stream stream;
  const pool_witness witness;
  {
    const default_resource_guard guard(&counting);
    run_every_allocating_call(stream.get(), seed);
  }
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_GT(counting.allocations.load(), 20);
  EXPECT_EQ(counting.allocations.load(), counting.deallocations.load());
  EXPECT_EQ(counting.live_bytes.load(), 0);
  EXPECT_LE(witness.high_water(), witness.used_before()) << "an allocation bypassed the resource";
}

TEST(MemoryResource, CallbackResourceServesAWorkspaceAndObjects) {
  SCANKIT_REQUIRE_GPU();
  counting_resource counting;
  callback_resource callbacks(counting_allocate, counting_deallocate, &counting);
  const owned_stream stream;
  std::vector<std::int32_t> values(70'001, 3);
  device_buffer<std::int32_t> in(values), out(values.size());
  {
    workspace ws(&callbacks);
    inclusive_scan(in.data(), out.data(), static_cast<std::int64_t>(values.size()), scan_op::plus, stream.get(), &ws);
    SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    EXPECT_EQ(out.download(), host_inclusive_sum(values));
    EXPECT_GT(ws.capacity_bytes(), 0u);

    device_buffer<float> w(std::vector<float>(500, 2.0f));
    sampling_table table(&callbacks);
    alias_table aliases(&callbacks);
    EXPECT_EQ(table.resource(), &callbacks);
    EXPECT_EQ(aliases.resource(), &callbacks);
    build_sampling_table(w.data(), 500, table, stream.get());
    build_alias_table(w.data(), 500, aliases, stream.get(), &ws);
    table.check_host(stream.get());
    aliases.check_host(stream.get());

    const auto coo = small_graph();
    device_buffer<std::int32_t> rows(coo.row), cols(coo.col);
    device_buffer<float> weights(coo.value);
    const sparse::device_csr<std::int32_t, float> a = sparse::coo_to_csr(
        rows.data(), cols.data(), weights.data(), static_cast<std::int64_t>(coo.value.size()), coo.rows, coo.cols,
        stream.get(), &ws, &callbacks);
    EXPECT_EQ(a.resource(), &callbacks);
    const sparse::device_csr<std::int32_t, float> owned(5, 5, 7, stream.get(), &callbacks);
    sparse::spmv_options transposed;
    transposed.operation = sparse::spmv_operation::transpose;
    const sparse::spmv_plan<std::int32_t, float> plan(a, transposed, stream.get(), &ws, &callbacks);
    const graph::pagerank_plan<std::int32_t, float> ranking(a, stream.get(), &ws, &callbacks);
    EXPECT_GT(counting.live_bytes.load(), 0);
  }
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(counting.allocations.load(), counting.deallocations.load());
  EXPECT_EQ(counting.live_bytes.load(), 0);
}

// A host function that holds `stream` for `ms` milliseconds.
void CUDART_CB sleep_on_stream(void* ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(*static_cast<int*>(ms)));
}

TEST(MemoryResource, DestructorsDoNotWaitForTheDevice) {
  SCANKIT_REQUIRE_GPU();
  counting_resource counting;
  for (device_memory_resource* resource : {static_cast<device_memory_resource*>(nullptr),
                                           static_cast<device_memory_resource*>(&counting)}) {
    SCOPED_TRACE(resource == nullptr ? "built-in pool" : "counting resource");
    const owned_stream stream;
    std::vector<std::int32_t> values(200'003, 1);
    device_buffer<std::int32_t> in(values), out(values.size());
    const auto coo = small_graph();
    device_buffer<std::int32_t> rows(coo.row), cols(coo.col);
    device_buffer<float> weights(coo.value), w(std::vector<float>(300, 1.0f));
    auto ws = std::make_unique<workspace>(resource);
    auto a = std::make_unique<sparse::device_csr<std::int32_t, float>>(sparse::coo_to_csr(
        rows.data(), cols.data(), weights.data(), static_cast<std::int64_t>(coo.value.size()), coo.rows, coo.cols,
        stream.get(), ws.get(), resource));
    auto plan = std::make_unique<sparse::spmv_plan<std::int32_t, float>>(*a, sparse::spmv_options{}, stream.get(),
                                                                         ws.get(), resource);
    auto ranking = std::make_unique<graph::pagerank_plan<std::int32_t, float>>(*a, stream.get(), ws.get(), resource);
    auto table = std::make_unique<sampling_table>(resource);
    build_sampling_table(w.data(), 300, *table, stream.get());
    SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));

    // The bounds below sit far under the hold and far over the work, so that a loaded machine
    // (tests run side by side) cannot fail them.
    int hold_ms = 1000;
    SCANKIT_CUDA_CHECK(cudaLaunchHostFunc(stream.get(), sleep_on_stream, &hold_ms));
    // Queued behind the host function: it runs after the destructors below have returned.
    inclusive_scan(in.data(), out.data(), static_cast<std::int64_t>(values.size()), scan_op::plus, stream.get(),
                   ws.get());
    const auto start = std::chrono::steady_clock::now();
    ws.reset();
    plan.reset();
    ranking.reset();
    a.reset();
    table.reset();
    const auto destroyed = std::chrono::steady_clock::now();
    EXPECT_EQ(cudaStreamQuery(stream.get()), cudaErrorNotReady) << "the stream should still be held";
    const double destroy_ms = std::chrono::duration<double, std::milli>(destroyed - start).count();
    EXPECT_LT(destroy_ms, 500.0) << "a destructor waited for the device";
    if (resource != nullptr) EXPECT_EQ(counting.last_free_stream(), stream.get());
    SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    EXPECT_EQ(out.download(), host_inclusive_sum(values)) << "the scan lost its workspace";
  }
  EXPECT_EQ(counting.live_bytes.load(), 0);
}

// A thread that ran a breadth-first search (which keeps pinned host slots and events per thread)
// ends while another stream is held: its exit must not wait for the device, and a later thread
// takes over its pinned block.
TEST(MemoryResource, AThreadExitDoesNotWaitForTheDevice) {
  SCANKIT_REQUIRE_GPU();
  const auto coo = small_graph();
  device_buffer<std::int32_t> rows(coo.row), cols(coo.col), levels(static_cast<std::size_t>(coo.rows));
  device_buffer<float> weights(coo.value);
  const owned_stream held, own;
  const sparse::device_csr<std::int32_t, float> a = sparse::coo_to_csr(
      rows.data(), cols.data(), weights.data(), static_cast<std::int64_t>(coo.value.size()), coo.rows, coo.cols,
      own.get());
  const auto search_on_a_thread = [&] {
    std::int64_t reached = 0;
    std::thread([&] { reached = graph::breadth_first_search(a, 0, levels.data(), own.get()).reached; }).join();
    return reached;
  };
  ASSERT_EQ(search_on_a_thread(), coo.rows);  // the first thread's exit puts its block on the free list
  int hold_ms = 1000;  // as in DestructorsDoNotWaitForTheDevice: room for a loaded machine
  SCANKIT_CUDA_CHECK(cudaLaunchHostFunc(held.get(), sleep_on_stream, &hold_ms));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(search_on_a_thread(), coo.rows);
  const double thread_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(cudaStreamQuery(held.get()), cudaErrorNotReady) << "the held stream should still be held";
  EXPECT_LT(thread_ms, 500.0) << "a thread's search or its exit waited for the device";
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(held.get()));
}

TEST(MemoryResource, WorkspaceReturnsMemoryOnItsLastStream) {
  SCANKIT_REQUIRE_GPU();
  counting_resource counting;
  const owned_stream first, second;
  std::vector<std::int32_t> values(2'000'000, 2);
  device_buffer<std::int32_t> in(values), out(values.size());
  {
    workspace ws(&counting);
    ASSERT_GT(scan_workspace_bytes(in.data(), 200'000), 0u);  // both calls need a workspace, the second more
    ASSERT_LT(scan_workspace_bytes(in.data(), 200'000), scan_workspace_bytes(in.data(), 2'000'000));
    inclusive_scan(in.data(), out.data(), 200'000, scan_op::plus, first.get(), &ws);
    SCANKIT_CUDA_CHECK(cudaStreamSynchronize(first.get()));
    ASSERT_EQ(counting.allocations.load(), 1);
    // Growing on `second` returns the smaller allocation on `first`, where it was last used.
    inclusive_scan(in.data(), out.data(), 2'000'000, scan_op::plus, second.get(), &ws);
    ASSERT_EQ(counting.allocations.load(), 2);
    EXPECT_EQ(counting.last_free_stream(), first.get());
    SCANKIT_CUDA_CHECK(cudaStreamSynchronize(second.get()));
  }
  EXPECT_EQ(counting.last_free_stream(), second.get());
  EXPECT_EQ(counting.live_bytes.load(), 0);
  EXPECT_EQ(out.download(), host_inclusive_sum(values));
}

TEST(MemoryResource, CapturedCallsTakeGraphMemoryNotTheResource) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  counting_resource counting;
  const default_resource_guard guard(&counting);
  const owned_stream stream;
  const std::int64_t n = 123'457;
  device_buffer<std::int32_t> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  workspace warmed;  // from `counting`, warmed before the capture
  inclusive_scan(in.data(), out.data(), n, scan_op::plus, stream.get(), &warmed);
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  const long long before = counting.allocations.load();

  cudaGraph_t graph = nullptr;
  SCANKIT_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
  inclusive_scan(in.data(), out.data(), n, scan_op::plus, stream.get());            // temporary storage
  inclusive_scan(out.data(), out.data(), n, scan_op::maximum, stream.get(), &warmed);  // the warmed workspace
  SCANKIT_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &graph));
  EXPECT_EQ(counting.allocations.load(), before) << "a captured call allocated from the resource";
  cudaGraphExec_t exec = nullptr;
  SCANKIT_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  std::mt19937_64 rng(seed);
  for (int replay = 0; replay < 3; ++replay) {
    std::vector<std::int32_t> values(static_cast<std::size_t>(n));
    for (auto& v : values) v = static_cast<std::int32_t>(rng() % 5);
    in.upload(values);
    out.poison();
    SCANKIT_CUDA_CHECK(cudaGraphLaunch(exec, stream.get()));
    SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    EXPECT_EQ(out.download(), host_inclusive_sum(values)) << "replay " << replay;  // a running sum is its own max
  }
  SCANKIT_CUDA_CHECK(cudaGraphExecDestroy(exec));
  SCANKIT_CUDA_CHECK(cudaGraphDestroy(graph));
  warmed.release();
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  EXPECT_EQ(counting.live_bytes.load(), 0);
}

}  // namespace
}  // namespace scankit::testing
