// Stress of the single-pass protocol: thousands of launches of random sizes and selectivities
// through one reused workspace (ticket reset, epochs, state slots that grow and shrink), each
// checked against the host reference; and a queue of launches back to back on one stream,
// checked only at the end.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "compact_test_util.cuh"

namespace scankit::testing {
namespace {

TEST(CompactStress, ThousandsOfRandomLaunches) {
  SCANKIT_REQUIRE_GPU();
  if (small_sizes_only()) GTEST_SKIP() << "SCANKIT_TEST_SMALL is set";
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const std::int64_t max_n = 1 << 18;
  const std::vector<std::uint32_t> host_in = random_items<std::uint32_t>(max_n, seed);
  device_buffer<std::uint32_t> in(host_in), out(host_in.size()), out2(host_in.size());
  std::vector<std::uint32_t> want(host_in.size()), want2(host_in.size());
  device_count count;
  workspace ws;
  for (int launch = 0; launch < 3000; ++launch) {
    const int kind = static_cast<int>(rng() % 3);
    const std::int64_t n = static_cast<std::int64_t>(rng() % (launch % 10 == 0 ? max_n : 40000));
    const std::uint32_t limit = static_cast<std::uint32_t>(rng());
    const keep_in_range<std::uint32_t> pred{0, limit};
    compact_options o;
    o.strategy = rng() % 8 == 0 ? compact_strategy::three_step : compact_strategy::single_pass;
    o.force_64bit_offsets = rng() % 4 == 0;
    SCOPED_TRACE("launch " + std::to_string(launch) + ": kind " + std::to_string(kind) + ", n = " + std::to_string(n) +
                 ", " + to_string(o.strategy) + (o.force_64bit_offsets ? ", 64-bit" : ""));
    count.poison();
    std::int64_t want_count = 0;
    if (kind == 0) {
      want_count = reference::select_if(host_in.data(), want.data(), n, pred);
      scankit::select_if(in.data(), out.data(), count.get(), n, pred, nullptr, &ws, o);
    } else if (kind == 1) {
      want_count = reference::partition_if(host_in.data(), want.data(), want2.data(), n, pred);
      scankit::partition_if(in.data(), out.data(), out2.data(), count.get(), n, pred, nullptr, &ws, o);
    } else {
      // Few distinct values so that runs appear.
      std::vector<std::uint32_t> keys(static_cast<std::size_t>(n));
      for (auto& k : keys) k = static_cast<std::uint32_t>(rng() % 3);
      SCANKIT_CUDA_CHECK(cudaMemcpy(out2.data(), keys.data(), keys.size() * 4, cudaMemcpyHostToDevice));
      want_count = reference::unique(keys.data(), want.data(), n);
      scankit::unique(out2.data(), out.data(), count.get(), n, nullptr, &ws, o);
    }
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    ASSERT_EQ(count.value(), want_count);
    std::vector<std::uint32_t> got(static_cast<std::size_t>(want_count));
    if (want_count > 0) {
      SCANKIT_CUDA_CHECK(cudaMemcpy(got.data(), out.data(), got.size() * 4, cudaMemcpyDeviceToHost));
    }
    ASSERT_TRUE(same_items(got, want, want_count));
    if (kind == 1 && n > want_count) {
      std::vector<std::uint32_t> rejected(static_cast<std::size_t>(n - want_count));
      SCANKIT_CUDA_CHECK(cudaMemcpy(rejected.data(), out2.data(), rejected.size() * 4, cudaMemcpyDeviceToHost));
      ASSERT_TRUE(same_items(rejected, want2, n - want_count)) << "rejected";
    }
  }
}

TEST(CompactStress, QueuedLaunchesOnOneStream) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const int launches = 200;
  const std::int64_t n = 100003;
  const std::vector<std::uint32_t> host_in = random_items<std::uint32_t>(n, seed);
  device_buffer<std::uint32_t> in(host_in);
  device_buffer<std::uint32_t> out(static_cast<std::size_t>(n) * launches);
  device_buffer<std::int64_t> counts(launches);
  workspace ws;
  cudaStream_t stream = nullptr;
  SCANKIT_CUDA_CHECK(cudaStreamCreate(&stream));
  std::vector<keep_in_range<std::uint32_t>> preds;
  std::mt19937_64 rng(seed);
  for (int l = 0; l < launches; ++l) {
    preds.push_back({0, static_cast<std::uint32_t>(rng())});
    compact_options o;
    o.force_64bit_offsets = l % 3 == 0;
    scankit::select_if(in.data(), out.data() + static_cast<std::size_t>(n) * l, counts.data() + l, n, preds.back(),
                       stream, &ws, o);
  }
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
  ws.release();  // returned on `stream`, which must still exist
  SCANKIT_CUDA_CHECK(cudaStreamDestroy(stream));
  const std::vector<std::int64_t> got_counts = counts.download();
  const std::vector<std::uint32_t> got = out.download();
  std::vector<std::uint32_t> want(static_cast<std::size_t>(n));
  for (int l = 0; l < launches; ++l) {
    SCOPED_TRACE("launch " + std::to_string(l));
    const std::int64_t c = reference::select_if(host_in.data(), want.data(), n, preds[static_cast<std::size_t>(l)]);
    ASSERT_EQ(got_counts[static_cast<std::size_t>(l)], c);
    ASSERT_TRUE(same_items(got, want, c, n * l, 0));
  }
}

}  // namespace
}  // namespace scankit::testing
