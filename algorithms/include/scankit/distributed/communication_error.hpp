// The error a distributed call raises when the communication fails: an NCCL error, a peer that
// never answers (timeout), or ranks that disagree about the call. Bad arguments raise
// scankit::error and CUDA failures scankit::cuda_error, as everywhere in scankit.
#pragma once

#include <stdexcept>
#include <string>

namespace scankit::distributed {

class communication_error : public std::runtime_error {
 public:
  // "scankit::distributed rank R of N: OPERATION: CAUSE"
  communication_error(int rank, int size, const std::string& operation, const std::string& cause)
      : std::runtime_error("scankit::distributed rank " + std::to_string(rank) + " of " + std::to_string(size) + ": " +
                           operation + ": " + cause),
        rank_(rank),
        operation_(operation),
        cause_(cause) {}
  int rank() const noexcept { return rank_; }
  const std::string& operation() const noexcept { return operation_; }
  const std::string& cause() const noexcept { return cause_; }

 private:
  int rank_;
  std::string operation_;
  std::string cause_;
};

}  // namespace scankit::distributed
