// Shared support of the distributed GPU tests: communicators for one thread per GPU, typed
// random inputs, and byte-exact comparison of device results.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <cuda_runtime_api.h>

#include "scankit/distributed/communicator.hpp"
#include "scankit/distributed/unique_id.hpp"
#include "support/gpu_test.hpp"

namespace scankit::testing {

// The value types the distributed API is precompiled for (those NCCL carries).
using nccl_value_types = ::testing::Types<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double>;

inline int visible_gpus() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

// Skips the test unless at least `ranks` GPUs are visible (one per rank).
#define SCANKIT_REQUIRE_GPUS(ranks)                                                                    \
  do {                                                                                                 \
    SCANKIT_REQUIRE_GPU();                                                                             \
    if (::scankit::testing::visible_gpus() < (ranks))                                                  \
      GTEST_SKIP() << "needs " << (ranks) << " GPUs, " << ::scankit::testing::visible_gpus() << " visible"; \
  } while (0)

// NVLink multicast stays off in every test process (the lent GPU machines do not support it;
// scripts/launch_distributed.sh does the same for programs). Before the first communicator.
inline void nccl_test_environment() { setenv("NCCL_NVLS_ENABLE", "0", 1); }

// Runs body(comm) on `ranks` threads, thread r on GPU r with its own communicator (the unique id
// shared in memory). Exceptions are collected per rank; the caller inspects them.
inline std::vector<std::exception_ptr> run_ranks(
    int ranks, const std::function<void(distributed::communicator&)>& body,
    std::chrono::milliseconds timeout = std::chrono::seconds(120)) {
  nccl_test_environment();
  distributed::shared_unique_id id;
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      try {
        SCANKIT_CUDA_CHECK(cudaSetDevice(r));
        distributed::communicator comm(id.get(r, ranks, timeout), r, ranks, r, {timeout});
        body(comm);
      } catch (...) {
        errors[static_cast<std::size_t>(r)] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  return errors;
}

// Fails the test with each rank's message when any rank threw.
inline void expect_no_errors(const std::vector<std::exception_ptr>& errors) {
  for (std::size_t r = 0; r < errors.size(); ++r) {
    if (!errors[r]) continue;
    try {
      std::rethrow_exception(errors[r]);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "rank " << r << ": " << e.what();
    } catch (...) {
      ADD_FAILURE() << "rank " << r << ": unknown exception";
    }
  }
}

// Random values of every kind the tests need: small integers (exact float sums), wide keys,
// few distinct keys, all equal; floats with -0.0, infinities and NaN for the sort.
enum class key_kind { small, wide, few, all_equal, special_floats };

template <class T>
std::vector<T> random_keys(std::size_t n, std::uint64_t seed, key_kind kind) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    const std::uint64_t r = rng();
    switch (kind) {
      case key_kind::small: x = static_cast<T>(static_cast<std::int64_t>(r % 17) - 8); break;
      case key_kind::few: x = static_cast<T>(r % 4); break;
      case key_kind::all_equal: x = static_cast<T>(3); break;
      case key_kind::wide:
        if constexpr (std::is_floating_point_v<T>) {
          x = static_cast<T>(std::ldexp(static_cast<double>(r >> 11) / 9007199254740992.0 - 0.5, static_cast<int>(r % 64) - 32));
        } else {
          std::memcpy(&x, &r, sizeof(T));
        }
        break;
      case key_kind::special_floats:
        if constexpr (std::is_floating_point_v<T>) {
          const T specials[] = {T(-0.0), T(0.0), std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                                std::numeric_limits<T>::quiet_NaN(), T(1), T(-1)};
          x = specials[r % 7];
        } else {
          x = static_cast<T>(r % 3);
        }
        break;
    }
  }
  return v;
}

// Byte-exact equality (floats compared by their bits: sorting moves bits, -0.0 and NaN included).
template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure() << "size " << got.size() << ", expected " << want.size();
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0) {
      return ::testing::AssertionFailure() << "first difference at " << i << " of " << got.size() << ": " << +got[i]
                                           << " vs " << +want[i];
    }
  }
  return ::testing::AssertionSuccess();
}

// Shard sizes that add up to `total`: uneven, with empty shards where `empties` asks.
inline std::vector<std::int64_t> uneven_sizes(std::int64_t total, int ranks, std::uint64_t seed, bool empties) {
  std::mt19937_64 rng(seed);
  std::vector<double> weights(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    weights[static_cast<std::size_t>(r)] = (empties && (r == 0 || r % 2 == 1 || r == ranks - 1) && r != ranks / 2)
                                               ? 0.0
                                               : 0.2 + static_cast<double>(rng() % 1000) / 250.0;
  }
  double sum = 0;
  for (const double w : weights) sum += w;
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(ranks), 0);
  std::int64_t given = 0;
  for (int r = 0; r < ranks; ++r) {
    sizes[static_cast<std::size_t>(r)] = static_cast<std::int64_t>(static_cast<double>(total) * weights[static_cast<std::size_t>(r)] / sum);
    given += sizes[static_cast<std::size_t>(r)];
  }
  sizes[static_cast<std::size_t>(ranks / 2)] += total - given;  // the middle rank is never empty
  return sizes;
}

}  // namespace scankit::testing
