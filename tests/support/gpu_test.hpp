// Shared test support: skipping without a GPU, device buffers, seeded random inputs, poisoning.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime_api.h>

#include "scankit/error.hpp"
#include "scankit/scan.hpp"

namespace scankit::testing {

// Skips the current test (reported by ctest as skipped) when no CUDA device is present.
#define SCANKIT_REQUIRE_GPU()                                        \
  do {                                                               \
    if (!::scankit::cuda_device_available()) GTEST_SKIP() << "no CUDA device"; \
  } while (0)

// A fresh seed per run (SCANKIT_TEST_SEED overrides it); printed on failure via SCOPED_TRACE.
inline std::uint64_t test_seed() {
  if (const char* fixed = std::getenv("SCANKIT_TEST_SEED")) return std::strtoull(fixed, nullptr, 10);
  static std::uint64_t base = std::random_device{}();
  return base++;
}

#define SCANKIT_SEEDED(seed_var)                      \
  const std::uint64_t seed_var = ::scankit::testing::test_seed(); \
  SCOPED_TRACE("seed " + std::to_string(seed_var) + " (rerun with SCANKIT_TEST_SEED=" + std::to_string(seed_var) + ")")

template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t count) : count_(count) {
    if (count > 0) SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));  // g++: no typed overload
  }
  explicit device_buffer(const std::vector<T>& host) : device_buffer(host.size()) { upload(host); }
  ~device_buffer() {
    if (data_ != nullptr) (void)cudaFree(data_);
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept : data_(o.data_), count_(o.count_) { o.data_ = nullptr; o.count_ = 0; }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return count_; }

  // Complete on return: cudaMemcpy from pageable memory may return before its DMA lands, and it
  // runs on the legacy stream, which a test's non-blocking stream does not wait for.
  void upload(const std::vector<T>& host) {
    if (host.empty()) return;
    SCANKIT_CUDA_CHECK(cudaMemcpy(data_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_ > 0) SCANKIT_CUDA_CHECK(cudaMemcpy(host.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  // Fills every byte with 0xA5 so that an element the kernel forgot to write cannot pass.
  void poison() {
    if (count_ > 0) SCANKIT_CUDA_CHECK(cudaMemset(data_, 0xA5, count_ * sizeof(T)));
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

// Random values that keep sums meaningful: small integers (so float sums stay exact for the
// sizes the tests use) for arithmetic types, never all zeros.
template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_int_distribution<int> d(-8, 8);
    for (auto& x : v) x = static_cast<T>(d(rng));
  } else if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<long long> d(-1000, 1000);
    for (auto& x : v) x = static_cast<T>(d(rng) ^ static_cast<long long>(rng() & 0x7f0));
  }
  return v;
}

inline bool gpu_memory_available(std::size_t bytes) {
  std::size_t free_bytes = 0, total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) return false;
  return free_bytes > bytes + (std::size_t(1) << 30);
}

}  // namespace scankit::testing
