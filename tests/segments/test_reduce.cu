// Reductions (template and precompiled API): sums, maxima and a non-commutative operator against
// the host, arg-min / arg-max with ties and NaNs, awkward sizes and alignments, iterators,
// same bits on every run, graph replay, bad arguments and more than 2^31 items.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "scan/scan_test_util.cuh"
#include "scankit/device/reduce.cuh"
#include "scankit/reduce.hpp"

namespace scankit::testing {
namespace {

template <class T, class Op>
T host_reduce(const std::vector<T>& v, std::size_t from, std::size_t to, T init, Op op) {
  T acc = init;
  for (std::size_t i = from; i < to; ++i) acc = static_cast<T>(op(acc, v[i]));
  return acc;
}

template <class T>
T download_one(const T* p) {
  T value;
  SCANKIT_CUDA_CHECK(cudaMemcpy(&value, p, sizeof(T), cudaMemcpyDeviceToHost));
  return value;
}

// Sizes around a warp tile (32 x 16 items of 4 bytes), a block's warps and the grid.
const std::int64_t sizes[] = {0, 1, 2, 511, 512, 513, 4095, 4097, 100'003, 1 << 20, (1 << 24) + 7};

TEST(Reduce, Int32SumMaxMinAcrossSizes) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  device_buffer<std::int32_t> out(1);
  for (std::int64_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto values = random_values<std::int32_t>(n, seed + n);
    device_buffer<std::int32_t> in(values);
    scankit::device::reduce(in.data(), out.data(), n, 5, plus_op{});
    EXPECT_EQ(host_reduce(values, 0, n, 5, plus_op{}), download_one(out.data()));
    scankit::device::reduce(in.data(), out.data(), n, std::numeric_limits<std::int32_t>::min(), maximum_op{});
    EXPECT_EQ(host_reduce(values, 0, n, std::numeric_limits<std::int32_t>::min(), maximum_op{}), download_one(out.data()));
    scankit::reduce(in.data(), out.data(), n, 100, scan_op::minimum);  // precompiled
    EXPECT_EQ(host_reduce(values, 0, n, 100, minimum_op{}), download_one(out.data()));
  }
}

TEST(Reduce, MisalignedAndNarrowInputs) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 300'017;
  const auto values = random_values<std::int16_t>(n, seed);
  device_buffer<std::int16_t> in(values);
  device_buffer<std::int64_t> out(1);
  for (std::int64_t offset : {0, 1, 3, 8}) {  // 2-byte steps off the 16-byte alignment
    // int16 items into an int64 accumulator: no wrap-around.
    scankit::device::reduce<std::int64_t>(in.data() + offset, out.data(), n - offset, std::int64_t{0}, plus_op{});
    std::int64_t expected = 0;
    for (std::int64_t i = offset; i < n; ++i) expected += values[i];
    EXPECT_EQ(expected, download_one(out.data())) << "offset " << offset;
  }
}

// Both ways of dealing the input to the warps with a commutative operator: warp tiles in turn
// across the grid (the tuned shape) and each warp through its own contiguous run.
TEST(Reduce, InterleavedAndContiguousRunShapes) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  namespace dd = scankit::device_detail;
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{511}, std::int64_t{512 * 16 + 5}, std::int64_t{(1 << 22) + 13},
                         std::int64_t{50'000'017}}) {
    const auto values = random_values<std::int32_t>(n, seed + n);
    device_buffer<std::int32_t> in(values);
    device_buffer<std::int64_t> out(1);
    std::int64_t expected = 7;
    for (const auto v : values) expected += v;
    const auto run = [&](auto policy) {
      dd::run_reduce<decltype(policy), std::int64_t, std::int32_t>(
          "test", in.data(), out.data(), n, true, std::int64_t{7},
          scankit::device_detail::to_accumulator<std::int64_t>{}, plus_op{}, nullptr, nullptr);
      return download_one(out.data());
    };
    EXPECT_EQ(expected, run(dd::reduce_policy<512, 16, 0, true>{})) << "interleaved, n = " << n;
    EXPECT_EQ(expected, run(dd::reduce_policy<512, 16, 0, false>{})) << "contiguous runs, n = " << n;
  }
}

TEST(Reduce, NonCommutativeOperator) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{700}, std::int64_t{(1 << 22) + 13}}) {
    const auto values = random_affine32(n, seed + n);
    device_buffer<affine32> in(values), out(1);
    scankit::device::reduce(in.data(), out.data(), n, affine32{3, 7}, compose_affine32{});
    EXPECT_EQ(host_reduce(values, 0, n, affine32{3, 7}, compose_affine32{}), download_one(out.data())) << "n = " << n;
  }
}

TEST(Reduce, FloatSumsGiveTheSameBitsEveryRun) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = (1 << 24) + 5;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> values(n);
  for (auto& v : values) v = d(rng);
  device_buffer<float> in(values), out(1);
  scankit::device::sum(in.data(), out.data(), n);
  const float first = download_one(out.data());
  double exact = 0;
  for (float v : values) exact += v;
  EXPECT_NEAR(exact, first, 1e-3 * std::sqrt(static_cast<double>(n)));
  for (int run = 0; run < 5; ++run) {
    scankit::device::sum(in.data(), out.data(), n);
    const float again = download_one(out.data());
    EXPECT_EQ(0, std::memcmp(&first, &again, sizeof(float))) << "run " << run;
  }
}

TEST(Reduce, ArgMinArgMaxTiesAndNans) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = 1'000'003;
  std::vector<float> values(n, 1.0f);
  values[10] = -2.0f;
  values[900'000] = -2.0f;  // a later tie: the first index wins
  values[20] = 5.0f;
  values[999'999] = 5.0f;
  device_buffer<float> in(values);
  device_buffer<indexed_value<float>> out(1);
  scankit::device::arg_min(in.data(), out.data(), n);
  indexed_value<float> r = download_one(out.data());
  EXPECT_EQ(10, r.index);
  EXPECT_EQ(-2.0f, r.value);
  scankit::arg_max(in.data(), out.data(), n);  // precompiled
  r = download_one(out.data());
  EXPECT_EQ(20, r.index);
  EXPECT_EQ(5.0f, r.value);
  // A NaN beats every number, in both; the first NaN wins.
  values[500'000] = std::nanf("");
  values[700'000] = -std::nanf("");
  in.upload(values);
  scankit::device::arg_min(in.data(), out.data(), n);
  EXPECT_EQ(500'000, download_one(out.data()).index);
  scankit::device::arg_max(in.data(), out.data(), n);
  EXPECT_EQ(500'000, download_one(out.data()).index);
  // Empty: index -1.
  scankit::device::arg_min(in.data(), out.data(), 0);
  EXPECT_EQ(-1, download_one(out.data()).index);
}

TEST(Reduce, ArgMinMatchesTheHostOnRandomIntegers) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t n : sizes) {
    if (n == 0) continue;
    const auto values = random_values<std::int64_t>(n, seed ^ n);  // many repeats: ties matter
    device_buffer<std::int64_t> in(values);
    device_buffer<indexed_value<std::int64_t>> out(1);
    scankit::arg_min(in.data(), out.data(), n);
    const auto best = std::min_element(values.begin(), values.end());
    const indexed_value<std::int64_t> got = download_one(out.data());
    EXPECT_EQ(best - values.begin(), got.index) << "n = " << n;
    EXPECT_EQ(*best, got.value) << "n = " << n;
  }
}

struct squared {
  __host__ __device__ long long operator()(long long i) const { return i * i % 1000; }
};

TEST(Reduce, IteratorInputs) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = 2'000'001;
  const auto in = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), squared{});
  device_buffer<long long> out(1);
  scankit::device::reduce(in, out.data(), n, 0LL, plus_op{});
  long long expected = 0;
  for (long long i = 0; i < n; ++i) expected += i * i % 1000;
  EXPECT_EQ(expected, download_one(out.data()));
}

TEST(Reduce, GraphReplayWithNewInput) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 5'000'000;
  device_buffer<std::int32_t> in(n), out(1);
  workspace ws;
  cudaStream_t stream;
  SCANKIT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  SCANKIT_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  scankit::reduce(in.data(), out.data(), n, 0, scan_op::plus, stream, &ws);
  SCANKIT_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  SCANKIT_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 4; ++replay) {
    const auto values = random_values<std::int32_t>(n, seed + replay);
    in.upload(values);
    SCANKIT_CUDA_CHECK(cudaGraphLaunch(exec, stream));
    SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
    EXPECT_EQ(host_reduce(values, 0, n, 0, plus_op{}), download_one(out.data())) << "replay " << replay;
  }
  SCANKIT_CUDA_CHECK(cudaGraphExecDestroy(exec));
  SCANKIT_CUDA_CHECK(cudaGraphDestroy(graph));
  ws.release();  // returned on `stream`, which must still exist
  SCANKIT_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(Reduce, WorkspaceQueryIsEnough) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = (1 << 26) + 1;
  device_buffer<double> in(std::vector<double>(n, 0.5)), out(1);
  device_buffer<char> memory(scankit::reduce_workspace_bytes(static_cast<const double*>(nullptr), n));
  workspace ws(memory.data(), memory.size());  // a call that needed more would throw
  scankit::reduce(in.data(), out.data(), n, 0.0, scan_op::plus, nullptr, &ws);
  EXPECT_EQ(0.5 * n, download_one(out.data()));
  device_buffer<indexed_value<double>> arg(1);
  scankit::arg_max(in.data(), arg.data(), n, nullptr, &ws);
  EXPECT_EQ(0, download_one(arg.data()).index);
}

TEST(Reduce, BadArgumentsThrowBeforeLaunch) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = 1000;
  device_buffer<std::int32_t> in(std::vector<std::int32_t>(n, 1)), out(1);
  EXPECT_THROW(scankit::reduce(in.data(), out.data(), -1), error);
  EXPECT_THROW(scankit::reduce(static_cast<const std::int32_t*>(nullptr), out.data(), n), error);
  EXPECT_THROW(scankit::reduce(in.data(), static_cast<std::int32_t*>(nullptr), n), error);
  EXPECT_THROW(scankit::reduce(in.data(), in.data() + 5, n), error);  // out inside in
  EXPECT_THROW(scankit::reduce(in.data(), out.data(), n, 0, scan_op::bit_and), error);
  EXPECT_TRUE(equal_vectors(std::vector<std::int32_t>(n, 1), in.download()));
}

// Above 2^31 items: uint8 ones summed into a uint64 accumulator.
TEST(ReduceLarge, Above2p31Items) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = (std::int64_t{1} << 31) + 12'345;
  if (!gpu_memory_available(static_cast<std::size_t>(n))) GTEST_SKIP() << "not enough GPU memory";
  device_buffer<std::uint8_t> in(n);
  SCANKIT_CUDA_CHECK(cudaMemset(in.data(), 1, n));
  device_buffer<std::uint64_t> out(1);
  scankit::device::reduce<std::uint64_t>(in.data(), out.data(), n, std::uint64_t{0}, plus_op{});
  EXPECT_EQ(static_cast<std::uint64_t>(n), download_one(out.data()));
}

}  // namespace
}  // namespace scankit::testing
