// Argument checks of the compaction API (plain C++). They run before anything is enqueued, so a
// rejected call leaves the caller's buffers and the stream untouched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>

#include "scankit/compact_options.hpp"
#include "scankit/detail/check_arguments.hpp"
#include "scankit/device_buffer.hpp"
#include "scankit/error.hpp"

namespace scankit::detail {

// A device array for the argument checks: where it is and how many bytes the call may touch.
struct array_extent {
  const char* name;
  const void* data;
  std::size_t bytes;
};

inline array_extent extent(const char* name, const void* data, std::int64_t n, std::size_t item_bytes) {
  return {name, data, n > 0 ? static_cast<std::size_t>(n) * item_bytes : 0};
}

inline bool overlaps(const array_extent& a, const array_extent& b) {
  if (a.bytes == 0 || b.bytes == 0 || a.data == nullptr || b.data == nullptr) return false;
  const auto a0 = reinterpret_cast<std::uintptr_t>(a.data);
  const auto b0 = reinterpret_cast<std::uintptr_t>(b.data);
  return a0 < b0 + b.bytes && b0 < a0 + a.bytes;
}

// The two arrays must not share a byte.
inline void check_disjoint(const char* function, const array_extent& a, const array_extent& b) {
  if (overlaps(a, b)) {
    throw error(std::string(function) + ": " + a.name + " and " + b.name + " overlap (they must be disjoint)");
  }
}

// `out` is either `in` itself (in place) or disjoint from it.
inline void check_in_place_or_disjoint(const char* function, const array_extent& in, const array_extent& out) {
  if (in.data == out.data) return;
  if (overlaps(in, out)) {
    throw error(std::string(function) + ": " + in.name + " and " + out.name +
                " overlap partially (in place needs " + out.name + " == " + in.name + ")");
  }
}

// The selected count goes to device memory: never null (n == 0 writes 0 there too), and it may
// not lie inside an array the call reads or writes.
inline void check_count_output(const char* function, const std::int64_t* d_count) {
  if (d_count == nullptr) throw error(std::string(function) + ": d_count is null (it receives the selected count)");
}

inline void check_count_disjoint(const char* function, const std::int64_t* d_count, const array_extent& a) {
  check_disjoint(function, {"d_count", d_count, sizeof(std::int64_t)}, a);
}

inline void check_compact_options(const char* function, const compact_options& options) {
  switch (options.strategy) {
    case compact_strategy::automatic:
    case compact_strategy::single_pass:
    case compact_strategy::three_step:
      return;
  }
  throw error(std::string(function) + ": options.strategy = " + std::to_string(static_cast<int>(options.strategy)) +
              " is not a compact_strategy");
}

// Runs `launch(d_count)` with a temporary device count, copies the count to the host and
// synchronises `stream` (the *_count_host convenience calls). Arguments are checked by the
// caller first, so a bad call throws scankit::error before the allocation.
template <class Launch>
std::int64_t count_to_host(cudaStream_t stream, Launch&& launch) {
  const device_buffer memory(sizeof(std::int64_t), stream, resource_for_call(stream));
  auto* d_count = memory.data_as<std::int64_t>();
  std::int64_t count = 0;
  launch(d_count);
  SCANKIT_CUDA_CHECK(cudaMemcpyAsync(&count, d_count, sizeof(count), cudaMemcpyDeviceToHost, stream));
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return count;
}

}  // namespace scankit::detail
