// A CUDA failure surfaces as scankit::cuda_error. The scan reads from an address no process can
// map (page 1; Linux never maps below mmap_min_addr, and no device allocation lives there), so
// the kernel faults. An illegal address poisons the CUDA context for the rest of the process,
// which is why this executable holds no other test of a sticky failure.
//
// The other test here concerns a caller's own non-sticky error, which leaves the context usable;
// it is defined first so that it also runs before the fault when the whole executable runs in one
// process (ctest runs each test in a process of its own anyway).
#include "scan_test_util.cuh"

namespace scankit::testing {
namespace {

// A trivial kernel of the caller's, launched with an invalid configuration below.
__global__ void callers_kernel(int* p) {
  if (p != nullptr) *p = 1;
}

// Leaves an error pending, as a caller's own failed launch would: 2048 threads per block is more
// than any GPU allows (the runtime reports it as an invalid configuration or an invalid argument,
// depending on its version). A non-sticky error: the context stays usable. Returns the error.
cudaError_t leave_launch_error_pending() {
  callers_kernel<<<1, 2048>>>(nullptr);
  return cudaPeekAtLastError();
}

// A caller's pending non-sticky error belongs to the caller: a scankit call on valid data must
// neither consume it (cudaGetLastError() afterwards still returns it) nor report it as a failure
// of its own (no exception naming one of its launches), whatever strategy and storage it uses.
TEST(ScanCudaErrors, CallersPendingErrorIsNeitherConsumedNorMisattributed) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  struct call_case {
    std::int64_t n;
    scan_strategy strategy;
    bool with_workspace;
  };
  const call_case cases[] = {{1000, scan_strategy::automatic, false},  // a single tile
                             {3'000'017, scan_strategy::automatic, false},
                             {3'000'017, scan_strategy::automatic, true},  // the workspace grows
                             {3'000'017, scan_strategy::automatic, true},  // and is reused
                             {3'000'017, scan_strategy::chained, true},
                             {3'000'017, scan_strategy::three_launch, true},
                             {3'000'017, scan_strategy::reduce_then_scan, false}};
  workspace ws;
  for (const call_case& c : cases) {
    SCOPED_TRACE("n = " + std::to_string(c.n) + ", strategy " + scankit::to_string(c.strategy) +
                 (c.with_workspace ? ", workspace" : ", ws == nullptr"));
    const std::vector<std::int32_t> host_in = random_values<std::int32_t>(static_cast<std::size_t>(c.n), rng());
    const std::vector<std::int32_t> expected = reference_scan(host_in.data(), c.n, scan_kind::inclusive, 0, plus_op{});
    device_buffer<std::int32_t> d_in(host_in);
    device_buffer<std::int32_t> d_out(static_cast<std::size_t>(c.n) + guard_items);
    d_out.poison();
    sync_device();
    scan_options options;
    options.strategy = c.strategy;

    const cudaError_t pending = leave_launch_error_pending();
    ASSERT_NE(pending, cudaSuccess) << "the provocation did not work";
    EXPECT_NO_THROW(precompiled_scan(scan_kind::inclusive, d_in.data(), d_out.data(), c.n, 0, scan_op::plus, nullptr,
                                     c.with_workspace ? &ws : nullptr, options));
    EXPECT_EQ(cudaGetLastError(), pending)  // and clears it for the next case
        << "the caller's pending error was consumed (or replaced) by the scankit call";

    sync_device();
    const std::vector<std::int32_t> out = d_out.download();
    EXPECT_TRUE(equal_ranges(expected.data(), out.data(), c.n));
    EXPECT_TRUE(still_poisoned(out, static_cast<std::size_t>(c.n), out.size()));
    if (::testing::Test::HasFailure()) return;
  }
}

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
