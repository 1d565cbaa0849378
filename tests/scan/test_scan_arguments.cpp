// Host tests of the precompiled API's argument checking. Every rejection must throw scankit::error
// before anything is enqueued, so these run without a GPU: the pointers are fake (host arrays) and
// are never dereferenced. The few cases that would launch work only run when a device is present.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "scankit/error.hpp"
#include "scankit/operators.hpp"
#include "scankit/lab/scan_lab.hpp"
#include "scankit/scan.hpp"
#include "scankit/scan_options.hpp"
#include "scankit/workspace.hpp"
#include "support/gpu_test.hpp"

namespace {

using scankit::block_scan_algorithm;
using scankit::scan_op;
using scankit::scan_options;
using scankit::scan_strategy;

// Runs `f` and expects a scankit::error (not a cuda_error, nothing else) whose message contains
// every fragment.
void expect_scankit_error(const std::function<void()>& f, std::initializer_list<std::string> fragments) {
  try {
    f();
    ADD_FAILURE() << "no exception was thrown";
  } catch (const scankit::cuda_error& e) {
    ADD_FAILURE() << "scankit::cuda_error instead of scankit::error (did something reach CUDA?): " << e.what();
  } catch (const scankit::error& e) {
    const std::string message = e.what();
    for (const std::string& fragment : fragments) {
      EXPECT_NE(message.find(fragment), std::string::npos) << "message \"" << message << "\" lacks \"" << fragment
                                                           << "\"";
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected exception type: " << e.what();
  }
}

#define EXPECT_SCANKIT_ERROR(statement, ...)                              \
  do {                                                                    \
    SCOPED_TRACE(#statement);                                             \
    expect_scankit_error([&] { statement; }, {__VA_ARGS__});              \
  } while (0)

constexpr scan_op all_ops[] = {scan_op::plus, scan_op::maximum, scan_op::minimum,
                               scan_op::bit_and, scan_op::bit_or, scan_op::bit_xor};
constexpr scan_op bitwise_ops[] = {scan_op::bit_and, scan_op::bit_or, scan_op::bit_xor};
constexpr scan_strategy all_strategies[] = {scan_strategy::automatic, scan_strategy::three_launch,
                                            scan_strategy::reduce_then_scan, scan_strategy::chained,
                                            scan_strategy::decoupled_look_back};
constexpr block_scan_algorithm all_algorithms[] = {
    block_scan_algorithm::automatic, block_scan_algorithm::kogge_stone_double_buffer,
    block_scan_algorithm::kogge_stone_read_sync_write, block_scan_algorithm::brent_kung,
    block_scan_algorithm::warp_of_warps};

// Typed null pointers (the precompiled overloads are plain functions, not templates).
template <class T>
const T* null_in() {
  return nullptr;
}
template <class T>
T* null_out() {
  return nullptr;
}

template <class T>
bool op_valid_for(scan_op op) {
  return scankit::op_supported<T>(op);
}

// ---------------------------------------------------------------------------------------------
// Checks common to every value type.

template <class T>
class ScanArguments : public ::testing::Test {
 protected:
  // Fake "device" memory: a host array that no accepted call will ever see (every call below is
  // rejected before anything is enqueued).
  alignas(16) static inline T storage[256] = {};
};

using all_value_types = ::testing::Types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t,
                                         std::uint32_t, std::int64_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(ScanArguments, all_value_types);

TYPED_TEST(ScanArguments, NegativeCount) {
  using T = TypeParam;
  T* buf = this->storage;
  EXPECT_SCANKIT_ERROR(scankit::inclusive_scan(buf, buf + 128, -1), "n = -1", "scankit::inclusive_scan");
  EXPECT_SCANKIT_ERROR(scankit::exclusive_scan(buf, buf + 128, -1, T{1}), "n = -1", "scankit::exclusive_scan");
  EXPECT_SCANKIT_ERROR(scankit::inclusive_scan(null_in<T>(), null_out<T>(), -7), "n = -7");
  EXPECT_SCANKIT_ERROR(scankit::inclusive_scan(buf, buf + 128, INT64_MIN), "n = " + std::to_string(INT64_MIN));
  EXPECT_SCANKIT_ERROR(scankit::scan_workspace_bytes(static_cast<const T*>(nullptr), -5), "n = -5");
}

TYPED_TEST(ScanArguments, NullPointersWithItems) {
  using T = TypeParam;
  T* buf = this->storage;
  EXPECT_SCANKIT_ERROR(scankit::inclusive_scan(static_cast<const T*>(nullptr), buf, 5), "in is null", "n = 5");
  EXPECT_SCANKIT_ERROR(scankit::inclusive_scan(buf, static_cast<T*>(nullptr), 5), "out is null", "n = 5");
  EXPECT_SCANKIT_ERROR(scankit::exclusive_scan(static_cast<const T*>(nullptr), buf, 1, T{1}), "in is null");
  EXPECT_SCANKIT_ERROR(scankit::exclusive_scan(buf, static_cast<T*>(nullptr), 1, T{1}), "out is null");
  EXPECT_SCANKIT_ERROR(scankit::inclusive_scan(null_in<T>(), null_out<T>(), 3), "is null");
}

TYPED_TEST(ScanArguments, PartialOverlap) {
  using T = TypeParam;
  T* buf = this->storage;
  // out one element after in.
  EXPECT_SCANKIT_ERROR(scankit::inclusive_scan(buf, buf + 1, 10), "overlap");
  // out one element before in.
  EXPECT_SCANKIT_ERROR(scankit::inclusive_scan(buf + 1, buf, 10), "overlap");
  // The last element of in is the first of out.
  EXPECT_SCANKIT_ERROR(scankit::exclusive_scan(buf, buf + 9, 10, T{1}), "overlap");
  EXPECT_SCANKIT_ERROR(scankit::exclusive_scan(buf + 9, buf, 10, T{1}), "overlap");
  // Overlap through a byte offset that is not a whole element.
  if constexpr (sizeof(T) > 1) {
    auto* shifted = reinterpret_cast<T*>(reinterpret_cast<unsigned char*>(buf) + 1);
    EXPECT_SCANKIT_ERROR(scankit::inclusive_scan(buf, shifted, 4), "overlap");
  }
}

TYPED_TEST(ScanArguments, ZeroItemsWithNullPointersIsAccepted) {
  using T = TypeParam;
  for (scan_op op : all_ops) {
    if (!op_valid_for<T>(op)) continue;
    SCOPED_TRACE(scankit::to_string(op));
    EXPECT_NO_THROW(scankit::inclusive_scan(null_in<T>(), null_out<T>(), 0, op));
    EXPECT_NO_THROW(scankit::exclusive_scan(null_in<T>(), null_out<T>(), 0, T{3}, op));
  }
  scankit::workspace ws;
  // Every strategy and block algorithm: the lab's calls (the production ones reject them).
  for (scan_strategy s : all_strategies) {
    scan_options options;
    options.strategy = s;
    SCOPED_TRACE(scankit::to_string(s));
    EXPECT_NO_THROW(scankit::lab::inclusive_scan(null_in<T>(), null_out<T>(), 0, scan_op::plus, nullptr, &ws, options));
    EXPECT_NO_THROW(
        scankit::lab::exclusive_scan(null_in<T>(), null_out<T>(), 0, T{1}, scan_op::plus, nullptr, nullptr, options));
  }
  for (block_scan_algorithm a : all_algorithms) {
    scan_options options;
    options.block_algorithm = a;
    SCOPED_TRACE(scankit::to_string(a));
    EXPECT_NO_THROW(
        scankit::lab::inclusive_scan(null_in<T>(), null_out<T>(), 0, scan_op::plus, nullptr, nullptr, options));
  }
  EXPECT_NO_THROW(scankit::inclusive_scan(null_in<T>(), null_out<T>(), 0, scan_op::plus, nullptr, &ws));
  EXPECT_EQ(ws.capacity_bytes(), 0u) << "an empty scan must not take workspace memory";
}

TYPED_TEST(ScanArguments, UnsupportedItemsPerThread) {
  using T = TypeParam;
  T* buf = this->storage;
  for (int k : {3, -1, 5, 1000}) {
    scan_options options;
    options.items_per_thread = k;
    EXPECT_SCANKIT_ERROR(scankit::lab::inclusive_scan(buf, buf + 128, 100, scan_op::plus, nullptr, nullptr, options),
                         "items_per_thread = " + std::to_string(k));
    EXPECT_SCANKIT_ERROR(scankit::lab::exclusive_scan(buf, buf + 128, 100, T{1}, scan_op::plus, nullptr, nullptr, options),
                         "items_per_thread = " + std::to_string(k));
  }
  // The coarsening sweep is precompiled for sums only.
  scan_options options;
  options.items_per_thread = 2;
  EXPECT_SCANKIT_ERROR(scankit::lab::inclusive_scan(buf, buf + 128, 100, scan_op::maximum, nullptr, nullptr, options),
                       "items_per_thread = 2");
}

TYPED_TEST(ScanArguments, OtherBlockAlgorithmsArePlusOnly) {
  using T = TypeParam;
  T* buf = this->storage;
  for (scan_op op : all_ops) {
    if (op == scan_op::plus || !op_valid_for<T>(op)) continue;
    for (block_scan_algorithm a : {block_scan_algorithm::kogge_stone_double_buffer,
                                   block_scan_algorithm::kogge_stone_read_sync_write,
                                   block_scan_algorithm::brent_kung}) {
      scan_options options;
      options.block_algorithm = a;
      SCOPED_TRACE(std::string(scankit::to_string(op)) + " " + scankit::to_string(a));
      EXPECT_SCANKIT_ERROR(scankit::lab::inclusive_scan(buf, buf + 128, 100, op, nullptr, nullptr, options),
                           scankit::to_string(a));
      EXPECT_SCANKIT_ERROR(scankit::lab::exclusive_scan(buf, buf + 128, 100, T{1}, op, nullptr, nullptr, options),
                           scankit::to_string(a));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Type-specific rejections.

template <class T>
void check_bitwise_rejected() {
  alignas(16) static T buf[256] = {};
  for (scan_op op : bitwise_ops) {
    SCOPED_TRACE(scankit::to_string(op));
    EXPECT_SCANKIT_ERROR(scankit::inclusive_scan(buf, buf + 128, 100, op), scankit::to_string(op), "integral");
    EXPECT_SCANKIT_ERROR(scankit::exclusive_scan(buf, buf + 128, 100, T{1}, op), scankit::to_string(op), "integral");
    // Even with nothing to scan, the operator is checked.
    EXPECT_SCANKIT_ERROR(scankit::inclusive_scan(null_in<T>(), null_out<T>(), 0, op), "integral");
  }
}

TEST(ScanArgumentsFloat, BitwiseOperatorsNeedIntegers) {
  check_bitwise_rejected<float>();
  check_bitwise_rejected<double>();
}

// options.deterministic is honoured by every strategy (the decoupled look-back switches to its
// deterministic form), so it is never a reason to reject a call. Checked without launching: n = 0.
template <class T>
void check_deterministic_accepted() {
  scan_options options;
  options.deterministic = true;
  for (scan_strategy s : all_strategies) {
    options.strategy = s;
    SCOPED_TRACE(scankit::to_string(s));
    EXPECT_NO_THROW(scankit::lab::inclusive_scan(null_in<T>(), null_out<T>(), 0, scan_op::plus, nullptr, nullptr, options));
    EXPECT_NO_THROW(scankit::lab::exclusive_scan(null_in<T>(), null_out<T>(), 0, T{1}, scan_op::maximum, nullptr, nullptr,
                                            options));
    EXPECT_NO_THROW((void)scankit::lab::scan_workspace_bytes(static_cast<const T*>(nullptr), 1 << 20, options));
  }
}

// The production library runs the look-back only: textbook strategies and lab shapes are rejected
// before anything launches, with a message that names the lab.
template <class T>
void check_lab_options_rejected() {
  alignas(16) static T buf[256] = {};
  for (scan_strategy s : {scan_strategy::three_launch, scan_strategy::reduce_then_scan, scan_strategy::chained}) {
    scan_options options;
    options.strategy = s;
    SCOPED_TRACE(scankit::to_string(s));
    EXPECT_SCANKIT_ERROR(scankit::inclusive_scan(buf, buf + 128, 100, scan_op::plus, nullptr, nullptr, options),
                         scankit::to_string(s), "scankit::lab::inclusive_scan");
    EXPECT_SCANKIT_ERROR(scankit::exclusive_scan(buf, buf + 128, 100, T{1}, scan_op::plus, nullptr, nullptr, options),
                         "scankit::lab::exclusive_scan");
    EXPECT_SCANKIT_ERROR((void)scankit::scan_workspace_bytes(static_cast<const T*>(nullptr), 1 << 20, options),
                         "scankit::lab");
  }
  scan_options shape;
  shape.items_per_thread = 4;
  EXPECT_SCANKIT_ERROR(scankit::inclusive_scan(buf, buf + 128, 100, scan_op::plus, nullptr, nullptr, shape),
                       "scankit::lab");
  shape = {};
  shape.block_algorithm = block_scan_algorithm::brent_kung;
  EXPECT_SCANKIT_ERROR(scankit::inclusive_scan(buf, buf + 128, 100, scan_op::plus, nullptr, nullptr, shape),
                       "scankit::lab");
  scan_options production;
  production.strategy = scan_strategy::decoupled_look_back;
  production.deterministic = true;
  EXPECT_NO_THROW(scankit::inclusive_scan(null_in<T>(), null_out<T>(), 0, scan_op::plus, nullptr, nullptr, production));
}

TEST(ScanArgumentsProduction, LabOptionsAreRejected) {
  check_lab_options_rejected<std::int32_t>();
  check_lab_options_rejected<double>();
}

TEST(ScanArgumentsDeterministic, AcceptedWithEveryStrategy) {
  check_deterministic_accepted<float>();
  check_deterministic_accepted<double>();
  check_deterministic_accepted<std::int32_t>();
  check_deterministic_accepted<std::uint64_t>();
}

TEST(ScanArgumentsInt, CoarseningSweepIsInt32AndFloatSumsOnly) {
  alignas(16) static std::int8_t bytes[256] = {};
  scan_options options;
  options.items_per_thread = 4;
  EXPECT_SCANKIT_ERROR(scankit::lab::inclusive_scan(bytes, bytes + 128, 100, scan_op::plus, nullptr, nullptr, options),
                       "items_per_thread = 4");
  alignas(16) static double doubles[256] = {};
  options.items_per_thread = 1;
  EXPECT_SCANKIT_ERROR(scankit::lab::inclusive_scan(doubles, doubles + 128, 100, scan_op::plus, nullptr, nullptr, options),
                       "items_per_thread = 1");
  // Accepted for int32 and float sums (n = 0: nothing launches).
  for (int k : {0, 1, 2, 4, 8, 16}) {
    options.items_per_thread = k;
    SCOPED_TRACE(k);
    EXPECT_NO_THROW(scankit::lab::inclusive_scan(null_in<std::int32_t>(), null_out<std::int32_t>(), 0, scan_op::plus, nullptr, nullptr, options));
    EXPECT_NO_THROW(scankit::lab::exclusive_scan(null_in<float>(), null_out<float>(), 0, 1.0f, scan_op::plus, nullptr, nullptr, options));
  }
}

TEST(ScanArgumentsKernelInfo, UnsupportedShapeIsRejectedWithoutADevice) {
  scan_options options;
  options.items_per_thread = 3;
  EXPECT_SCANKIT_ERROR((void)scankit::describe_scan_kernel(null_in<std::int32_t>(), options), "items_per_thread = 3");
  EXPECT_SCANKIT_ERROR((void)scankit::describe_scan_kernel(null_in<float>(), options), "items_per_thread = 3");
}

TEST(ScanArgumentsWorkspace, NullCallerMemoryWithBytesIsRejected) {
  EXPECT_SCANKIT_ERROR(scankit::workspace(nullptr, 1024), "null", "1024");
  EXPECT_NO_THROW(scankit::workspace(nullptr, 0));
}

// ---------------------------------------------------------------------------------------------
// With a device: in place is not an overlap, and rejected calls leave the buffers untouched.

TEST(ScanArgumentsGpu, InPlaceIsNotRejectedAsOverlap) {
  SCANKIT_REQUIRE_GPU();
  constexpr std::int64_t n = 1000;
  std::vector<std::int32_t> host(n);
  for (std::int64_t i = 0; i < n; ++i) host[i] = static_cast<std::int32_t>(i + 1);
  scankit::testing::device_buffer<std::int32_t> d(host);
  EXPECT_NO_THROW(scankit::inclusive_scan(d.data(), d.data(), n));
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  const auto out = d.download();
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], (i + 1) * (i + 2) / 2) << "i = " << i;

  d.upload(host);
  EXPECT_NO_THROW(scankit::exclusive_scan(d.data(), d.data(), n, 5));
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  const auto out_ex = d.download();
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(out_ex[i], 5 + i * (i + 1) / 2) << "i = " << i;
}

TEST(ScanArgumentsGpu, RejectedCallsEnqueueNothing) {
  SCANKIT_REQUIRE_GPU();
  constexpr std::int64_t n = 100000;
  scankit::testing::device_buffer<float> in(std::vector<float>(n, 1.0f));
  scankit::testing::device_buffer<float> out(n);
  out.poison();
  scankit::workspace ws;

  scan_options bad_k;
  bad_k.items_per_thread = 3;
  scan_options bad_algorithm;
  bad_algorithm.block_algorithm = block_scan_algorithm::brent_kung;

  EXPECT_THROW(scankit::inclusive_scan(in.data(), out.data(), n, scan_op::bit_or, nullptr, &ws), scankit::error);
  EXPECT_THROW(scankit::inclusive_scan(in.data(), out.data(), n, scan_op::plus, nullptr, &ws, bad_k), scankit::error);
  EXPECT_THROW(scankit::inclusive_scan(in.data(), out.data(), n, scan_op::minimum, nullptr, &ws, bad_algorithm),
               scankit::error);
  EXPECT_THROW(scankit::exclusive_scan(in.data(), out.data(), n, 0.0f, scan_op::bit_and, nullptr, &ws),
               scankit::error);
  EXPECT_THROW(scankit::inclusive_scan(in.data(), in.data() + 1, n - 1), scankit::error);
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);

  const std::vector<float> after = out.download();
  const auto* bytes = reinterpret_cast<const unsigned char*>(after.data());
  for (std::size_t i = 0; i < after.size() * sizeof(float); ++i) ASSERT_EQ(bytes[i], 0xA5) << "byte " << i;
  EXPECT_EQ(in.download(), std::vector<float>(n, 1.0f));
  EXPECT_EQ(ws.capacity_bytes(), 0u) << "a rejected call took workspace memory";
}

}  // namespace
