// The non-blocking NCCL communicator with timed waits (scankit/distributed/communicator.hpp).
//
// Non-blocking mode (ncclConfig_t::blocking = 0): creation, group ends and finalization may
// return ncclInProgress and finish in the background; ncclCommGetAsyncError reports the state
// (ncclInProgress, ncclSuccess or an error) and must read ncclSuccess before the next call on the
// communicator. The kernels NCCL enqueues then run on the caller's stream, and a peer that never
// joins leaves them spinning on the GPU: only the host can notice (the stream does not finish in
// time) and ncclCommAbort is what stops them. Every wait here therefore polls both the stream and
// the communicator until a deadline.
#include "scankit/distributed/communicator.hpp"

#include <nccl.h>

#include <cstring>
#include <thread>
#include <utility>

#include "scankit/error.hpp"

namespace scankit::distributed {

namespace {

using clock_type = std::chrono::steady_clock;

// Spin briefly (most collectives of a few bytes finish within microseconds), then sleep so that
// a long wait leaves the CPU to the other ranks' threads.
void back_off(clock_type::time_point started) {
  if (clock_type::now() - started < std::chrono::milliseconds(2)) {
    std::this_thread::yield();
  } else {
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

std::string nccl_cause(ncclComm_t comm, ncclResult_t result) {
  std::string cause = std::string(ncclGetErrorString(result));
  const char* last = ncclGetLastError(comm);
  if (last != nullptr && last[0] != '\0') cause += " (" + std::string(last) + ")";
  return cause;
}

}  // namespace

communicator::communicator(const unique_id& id, int rank, int size, int device, const communicator_options& options)
    : rank_(rank), size_(size), device_(device), timeout_(options.timeout) {
  if (size < 1) throw error("scankit::distributed::communicator: size must be at least 1, got " + std::to_string(size));
  if (rank < 0 || rank >= size) {
    throw error("scankit::distributed::communicator: rank " + std::to_string(rank) + " is outside [0, " +
                std::to_string(size) + ")");
  }
  if (options.timeout.count() <= 0) throw error("scankit::distributed::communicator: the timeout must be positive");
  int devices = 0;
  SCANKIT_CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (device < 0 || device >= devices) {
    throw error("scankit::distributed::communicator: device " + std::to_string(device) + " does not exist (" +
                std::to_string(devices) + " visible)");
  }
  SCANKIT_CUDA_CHECK(cudaSetDevice(device));

  ncclUniqueId nccl_id;
  std::memcpy(&nccl_id, id.bytes.data(), sizeof(nccl_id));
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  const ncclResult_t result = ncclCommInitRankConfig(&comm_, size, nccl_id, rank, &config);
  if (comm_ == nullptr) {
    throw communication_error(rank, size, "creating the communicator", ncclGetErrorString(result));
  }
  complete(result, "creating the communicator");
}

communicator::~communicator() {
  if (comm_ == nullptr || aborted_) return;
  try {
    (void)cudaSetDevice(device_);
    // Finalize flushes what is still queued; it can only finish if the peers do too, so it gets
    // the same deadline as any other step and an abort when that passes.
    ncclResult_t result = ncclCommFinalize(comm_);
    const auto started = clock_type::now();
    while (result == ncclInProgress && clock_type::now() - started < timeout_) {
      back_off(started);
      if (ncclCommGetAsyncError(comm_, &result) != ncclSuccess) break;
    }
    if (result == ncclSuccess) {
      (void)ncclCommDestroy(comm_);
      comm_ = nullptr;
    } else {
      abort();
    }
  } catch (...) {
    abort();
  }
}

communicator::communicator(communicator&& other) noexcept
    : comm_(std::exchange(other.comm_, nullptr)),
      rank_(other.rank_),
      size_(other.size_),
      device_(other.device_),
      timeout_(other.timeout_),
      aborted_(other.aborted_) {}

communicator& communicator::operator=(communicator&& other) noexcept {
  if (this != &other) {
    this->~communicator();
    comm_ = std::exchange(other.comm_, nullptr);
    rank_ = other.rank_;
    size_ = other.size_;
    device_ = other.device_;
    timeout_ = other.timeout_;
    aborted_ = other.aborted_;
  }
  return *this;
}

void communicator::check_ready(const char* operation) const {
  if (aborted_ || comm_ == nullptr) {
    throw error(std::string(operation) + ": the communicator of rank " + std::to_string(rank_) +
                " was aborted after an earlier failure (create a new one)");
  }
  int current = -1;
  SCANKIT_CUDA_CHECK(cudaGetDevice(&current));
  if (current != device_) {
    throw error(std::string(operation) + ": called on device " + std::to_string(current) + " but rank " +
                std::to_string(rank_) + "'s communicator is on device " + std::to_string(device_) +
                " (cudaSetDevice first)");
  }
}

void communicator::complete(int nccl_result, const char* operation) {
  auto result = static_cast<ncclResult_t>(nccl_result);
  if (result == ncclSuccess) return;
  if (result != ncclInProgress) fail(operation, nccl_cause(comm_, result));
  const auto started = clock_type::now();
  for (;;) {
    const ncclResult_t query = ncclCommGetAsyncError(comm_, &result);
    if (query != ncclSuccess) fail(operation, "ncclCommGetAsyncError: " + nccl_cause(comm_, query));
    if (result == ncclSuccess) return;
    if (result != ncclInProgress) fail(operation, nccl_cause(comm_, result));
    if (clock_type::now() - started >= timeout_) {
      fail(operation, "timed out after " + std::to_string(timeout_.count()) + " ms (a peer did not join?)");
    }
    back_off(started);
  }
}

void communicator::wait(cudaStream_t stream, const char* operation) {
  const auto started = clock_type::now();
  for (;;) {
    const cudaError_t done = cudaStreamQuery(stream);
    ncclResult_t state = ncclSuccess;
    const ncclResult_t query = ncclCommGetAsyncError(comm_, &state);
    if (query != ncclSuccess) fail(operation, "ncclCommGetAsyncError: " + nccl_cause(comm_, query));
    if (state != ncclSuccess && state != ncclInProgress) fail(operation, nccl_cause(comm_, state));
    if (done == cudaSuccess) return;
    if (done != cudaErrorNotReady) {
      (void)cudaGetLastError();
      fail(operation, std::string("CUDA error on the stream: ") + cudaGetErrorName(done) + ": " +
                          cudaGetErrorString(done));
    }
    if (clock_type::now() - started >= timeout_) {
      fail(operation, "timed out after " + std::to_string(timeout_.count()) +
                          " ms waiting for the stream (a peer failed or did not make the same call?)");
    }
    back_off(started);
  }
}

void communicator::fail(const std::string& operation, const std::string& cause) {
  abort();
  throw communication_error(rank_, size_, operation, cause + " (communicator aborted)");
}

void communicator::abort() noexcept {
  if (comm_ != nullptr && !aborted_) (void)ncclCommAbort(comm_);
  comm_ = nullptr;
  aborted_ = true;
}

}  // namespace scankit::distributed
