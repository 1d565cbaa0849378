// A CUDA failure surfaces as scankit::cuda_error. The scan reads from an address no process can
// map (page 1; Linux never maps below mmap_min_addr, and no device allocation lives there), so
// the kernel faults. An illegal address poisons the CUDA context for the rest of the process,
// which is why this executable holds this one test only.
#include "scan_test_util.cuh"

namespace scankit::testing {
namespace {

TEST(ScanCudaErrors, IllegalAddressSurfacesAsCudaError) {
  SCANKIT_REQUIRE_GPU();
  constexpr std::int64_t n = 1'000'000;
  device_buffer<std::int32_t> good_in(std::vector<std::int32_t>(n, 1));
  device_buffer<std::int32_t> out(n);
  const auto* unmapped = reinterpret_cast<const std::int32_t*>(std::uintptr_t{4096});

  // The launch itself may or may not report the fault (it is asynchronous).
  bool thrown = false;
  try {
    scankit::inclusive_scan(unmapped, out.data(), n);
  } catch (const scankit::cuda_error& e) {
    thrown = true;
    EXPECT_NE(e.code(), cudaSuccess);
    EXPECT_NE(std::string(e.what()).find("failed"), std::string::npos) << e.what();
  }
  const cudaError_t sync = cudaDeviceSynchronize();
  if (!thrown) EXPECT_NE(sync, cudaSuccess) << "reading address 4096 did not fault";

  // The context is now broken: the next scan must report it as a cuda_error, never silently.
  try {
    scankit::inclusive_scan(good_in.data(), out.data(), n);
    const cudaError_t after = cudaDeviceSynchronize();
    ADD_FAILURE() << "no scankit::cuda_error after the fault (synchronize says " << cudaGetErrorName(after) << ")";
  } catch (const scankit::cuda_error& e) {
    EXPECT_NE(e.code(), cudaSuccess);
    SUCCEED() << e.what();
  }
}

}  // namespace
}  // namespace scankit::testing
