// One rank of a group of GPUs on one host: an NCCL communicator, created non-blocking so that
// its creation and every collective can be waited on with a timeout.
//
// One process or one thread per GPU; each constructs a communicator with the shared unique_id,
// its rank, the group size and its CUDA device. Every distributed call runs on the communicator's
// device, enqueues its work on the caller's stream and WAITS for that stream before it returns
// (polling the stream and ncclCommGetAsyncError): that is what turns a peer that died, or never
// called, into an error instead of a hang. On a timeout or an NCCL error the communicator is
// aborted (ncclCommAbort) and the call throws communication_error naming the rank, the operation
// and the cause; an aborted communicator refuses further calls. Peers that wait on the aborted
// rank then time out in turn and throw as well.
//
// NVLink multicast (NVLS) must stay off: run with NCCL_NVLS_ENABLE=0 (scripts/launch_distributed.sh
// sets it; the GPU machines this project is lent do not support it). The communicator does not
// change the environment of the process: the launcher or the caller sets it before the first
// communicator is created.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>

#include "scankit/distributed/communication_error.hpp"
#include "scankit/distributed/unique_id.hpp"

// NCCL's own handle type, declared as nccl.h declares it so this header needs no NCCL include.
struct ncclComm;
typedef struct ncclComm* ncclComm_t;

namespace scankit::distributed {

struct communicator_options {
  // Longest wait for creation and for each collective step; a step that takes longer (a peer is
  // gone or never joined) aborts the communicator and throws.
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};
};

class communicator {
 public:
  // Creates this rank's communicator on CUDA device `device` (made current on this thread).
  // Throws scankit::error for size < 1, a rank outside [0, size) or a bad device (before any
  // NCCL call), communication_error when the group does not form within the timeout.
  communicator(const unique_id& id, int rank, int size, int device, const communicator_options& options = {});
  // Finalizes and destroys the communicator (aborts it if finalization times out). Never throws.
  ~communicator();

  communicator(const communicator&) = delete;
  communicator& operator=(const communicator&) = delete;
  communicator(communicator&& other) noexcept;
  communicator& operator=(communicator&& other) noexcept;

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  int device() const noexcept { return device_; }
  std::chrono::milliseconds timeout() const noexcept { return timeout_; }
  bool aborted() const noexcept { return aborted_; }
  ncclComm_t native() const noexcept { return comm_; }

  // ---- For the module's own calls (and for callers who issue NCCL calls of their own) ----

  // Throws scankit::error unless this communicator is usable from this thread: not aborted, and
  // its device is the current CUDA device. `operation` names the caller in the message.
  void check_ready(const char* operation) const;
  // Completes an NCCL call issued on this communicator: ncclInProgress (the non-blocking mode's
  // "still being set up") is polled to its end; any error or a timeout aborts and throws.
  void complete(int nccl_result, const char* operation);
  // Waits, with the timeout, until `stream` has run everything enqueued so far, watching the
  // communicator for asynchronous errors meanwhile; aborts and throws on error or timeout.
  void wait(cudaStream_t stream, const char* operation);
  // Aborts the communicator and throws communication_error(rank, size, operation, cause).
  [[noreturn]] void fail(const std::string& operation, const std::string& cause);
  // Aborts the communicator (idempotent, never throws).
  void abort() noexcept;

 private:
  ncclComm_t comm_ = nullptr;
  int rank_ = 0;
  int size_ = 0;
  int device_ = 0;
  std::chrono::milliseconds timeout_{};
  bool aborted_ = false;
};

}  // namespace scankit::distributed
