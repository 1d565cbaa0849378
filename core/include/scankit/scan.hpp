// Prefix sums over device arrays: the precompiled host API (callable from g++-compiled code).
//
//   inclusive_scan: out[i] = in[0] op in[1] op ... op in[i]
//   exclusive_scan: out[i] = init op in[0] op ... op in[i-1]   (out[0] = init)
//
// Pointers are device pointers; `n` is a 64-bit count, or a scankit::device_n (a count in device
// memory with a host bound, read when the scan runs; device_n.hpp); work is enqueued on `stream`
// and the call returns without synchronising. `out == in` (in place) is allowed; any other overlap is rejected.
// With `ws == nullptr` temporary storage is taken and returned stream-ordered (default_resource());
// pass a scankit::workspace to reuse it across calls (it also saves an initialisation launch).
// Bad arguments throw scankit::error before anything is enqueued; CUDA failures throw
// scankit::cuda_error. For custom value types, operators and iterators use scankit/device/scan.cuh
// (nvcc).
//
// One pass with the decoupled look-back: options.strategy may be automatic or
// decoupled_look_back, and options.deterministic asks for same-bits floating-point results. The
// textbook strategies, block algorithms and coarsening factors are the scan lab's:
// scankit/lab/scan_lab.hpp (library scankit::lab).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "scankit/device_n.hpp"
#include "scankit/error.hpp"
#include "scankit/scan_options.hpp"
#include "scankit/workspace.hpp"

namespace scankit {

#define SCANKIT_DECLARE_SCAN(T)                                                                     \
  void inclusive_scan(const T* in, T* out, std::int64_t n, scan_op op = scan_op::plus,              \
                      cudaStream_t stream = nullptr, workspace* ws = nullptr,                       \
                      const scan_options& options = {});                                            \
  void exclusive_scan(const T* in, T* out, std::int64_t n, T init, scan_op op = scan_op::plus,      \
                      cudaStream_t stream = nullptr, workspace* ws = nullptr,                       \
                      const scan_options& options = {});                                            \
  std::size_t scan_workspace_bytes(const T* /*type tag*/, std::int64_t n, const scan_options& options = {}); \
  void inclusive_scan(const T* in, T* out, device_n n, scan_op op = scan_op::plus, cudaStream_t stream = nullptr, \
                      workspace* ws = nullptr, const scan_options& options = {});                   \
  void exclusive_scan(const T* in, T* out, device_n n, T init, scan_op op = scan_op::plus,          \
                      cudaStream_t stream = nullptr, workspace* ws = nullptr,                       \
                      const scan_options& options = {});

SCANKIT_DECLARE_SCAN(std::int8_t)
SCANKIT_DECLARE_SCAN(std::uint8_t)
SCANKIT_DECLARE_SCAN(std::int16_t)
SCANKIT_DECLARE_SCAN(std::uint16_t)
SCANKIT_DECLARE_SCAN(std::int32_t)
SCANKIT_DECLARE_SCAN(std::uint32_t)
SCANKIT_DECLARE_SCAN(std::int64_t)
SCANKIT_DECLARE_SCAN(std::uint64_t)
SCANKIT_DECLARE_SCAN(float)
SCANKIT_DECLARE_SCAN(double)

#undef SCANKIT_DECLARE_SCAN

// True when a CUDA device is visible to this process (no exception; for apps and tests).
bool cuda_device_available() noexcept;

}  // namespace scankit
