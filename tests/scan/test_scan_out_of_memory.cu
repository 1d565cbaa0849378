// Workspace allocation failure surfaces as scankit::cuda_error (cudaErrorMemoryAllocation), before
// any kernel runs. A 128-byte value type with one-warp tiles needs 2 payloads of 128 bytes and an
// 8-byte slot per 32 items: for 2^31 - 1 tiles that is about 560 GB, more than any GPU has. The
// pointers are fake (no overlap, never dereferenced: the allocation fails first). If the
// allocation somehow succeeded the kernel would fault, so this test lives in its own executable.
#include "scan_test_util.cuh"

namespace scankit::testing {
namespace {

struct big_value {
  std::uint32_t words[32];
};
struct first_word_sum {
  __host__ __device__ big_value operator()(const big_value& a, const big_value& b) const {
    big_value r = a;
    r.words[0] += b.words[0];
    return r;
  }
};

TEST(ScanOutOfMemory, WorkspaceAllocationFailureIsACudaError) {
  SCANKIT_REQUIRE_GPU();
  using policy = scankit::device::policy<32, 1>;
  const std::int64_t tiles = (std::int64_t{1} << 31) - 1;  // the most a launch allows
  const std::int64_t n = tiles * policy::tile_items;
  const std::size_t bytes = scankit::device::scan_workspace_bytes<big_value, first_word_sum, policy>(n);
  std::size_t free_bytes = 0, total_bytes = 0;
  SCANKIT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes <= total_bytes) GTEST_SKIP() << "this GPU could hold " << bytes << " bytes of workspace";

  const std::uintptr_t base = std::uintptr_t{1} << 46;
  const auto* in = reinterpret_cast<const big_value*>(base);
  auto* out = reinterpret_cast<big_value*>(base + (std::uintptr_t{1} << 45));  // beyond in + n
  ASSERT_GT(std::uintptr_t{1} << 45, static_cast<std::uintptr_t>(n) * sizeof(big_value));
  workspace ws;
  try {
    scankit::device::inclusive_scan<policy>(in, out, n, first_word_sum{}, nullptr, &ws);
    ADD_FAILURE() << "a workspace of " << bytes << " bytes was allocated";
  } catch (const scankit::cuda_error& e) {
    EXPECT_EQ(e.code(), cudaErrorMemoryAllocation) << e.what();
  }
  EXPECT_EQ(ws.capacity_bytes(), 0u);

  // The failure is not sticky: the next scan works.
  const std::int64_t m = 100'000;
  device_buffer<std::int32_t> d_in(std::vector<std::int32_t>(m, 2));
  device_buffer<std::int32_t> d_out(m);
  scankit::inclusive_scan(d_in.data(), d_out.data(), m, scan_op::plus, nullptr, &ws);
  sync_device();
  const auto result = d_out.download();
  for (std::int64_t i = 0; i < m; ++i) ASSERT_EQ(result[i], 2 * (i + 1)) << "i = " << i;
}

}  // namespace
}  // namespace scankit::testing
