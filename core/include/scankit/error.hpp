// Errors raised by scankit: bad arguments (before any launch) and CUDA failures.
#pragma once

#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

namespace scankit {

// Raised for a bad argument or an unsupported option. Always thrown before any work is
// enqueued, so the caller's buffers are untouched.
class error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Raised when a CUDA runtime call fails; the message names the call and CUDA's own message.
class cuda_error : public std::runtime_error {
 public:
  cuda_error(cudaError_t code, const std::string& call)
      : std::runtime_error(call + " failed: " + cudaGetErrorName(code) + ": " + cudaGetErrorString(code)),
        code_(code) {}
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

namespace detail {
inline void check_cuda(cudaError_t code, const char* call) {
  if (code != cudaSuccess) {
    (void)cudaGetLastError();  // clear a sticky-free error so the next call starts clean
    throw cuda_error(code, call);
  }
}
}  // namespace detail

}  // namespace scankit

// Wraps a CUDA runtime call; on failure throws scankit::cuda_error naming the call text.
#define SCANKIT_CUDA_CHECK(call) ::scankit::detail::check_cuda((call), #call)
