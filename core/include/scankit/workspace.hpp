// Caller-owned temporary storage for scankit's device algorithms, reusable across calls.
//
// Layout of the one allocation:
//   [header: 256 bytes]  ticket counter of the single-pass kernels (reset by the kernel itself)
//   [state slots]        8 bytes per tile; the low 4 bytes of every slot only ever hold a tile
//                        status tagged with a launch epoch (or zero), so a stale slot can never be
//                        mistaken for a status of the current launch
//   [scratch]            anything else: tile totals, large payloads, recursion levels
// Growing the state region reallocates and zeroes it; the epoch advances on every single-pass
// launch, which is what lets those launches skip a separate initialisation pass.
//
// A workspace serves one stream at a time: two launches that share a workspace must be ordered
// (same stream, or synchronised streams).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace scankit {

// What a kernel needs to know about the prepared workspace.
struct workspace_view {
  std::uint32_t* ticket = nullptr;       // single-pass tile ticket counter
  std::uint64_t* state_slots = nullptr;  // one slot per tile
  void* scratch = nullptr;               // 256-byte aligned
  std::size_t scratch_bytes = 0;
  std::uint32_t epoch = 0;               // 1 .. max_epoch; tags this launch's statuses
};

class workspace {
 public:
  static constexpr std::size_t header_bytes = 256;
  static constexpr std::uint32_t max_epoch = (1u << 30) - 1;

  // An empty workspace: memory is taken on first use with cudaMallocAsync on the call's stream.
  workspace() = default;
  // Wraps memory the caller allocated (device memory, at least `bytes`, kept alive by the caller).
  // It is zeroed (stream-ordered) on first use. A call that needs more than `bytes` throws.
  workspace(void* device_memory, std::size_t bytes);
  // Frees owned memory with cudaFree, which waits for the device (the last stream used may be
  // gone by then). Call release() first to return it stream-ordered instead.
  ~workspace();

  workspace(const workspace&) = delete;
  workspace& operator=(const workspace&) = delete;
  workspace(workspace&& other) noexcept;
  workspace& operator=(workspace&& other) noexcept;

  std::size_t capacity_bytes() const noexcept { return capacity_; }

  // Bytes a call needs for `state_slots` tile slots and `scratch_bytes` of scratch.
  static std::size_t bytes_needed(std::size_t state_slots, std::size_t scratch_bytes) noexcept;

  // Makes sure the workspace holds at least this much (growing it stream-ordered on `stream`),
  // advances the epoch and returns the view for one launch sequence. Throws scankit::cuda_error
  // on allocation failure and scankit::error if wrapped memory is too small.
  workspace_view prepare(std::size_t state_slots, std::size_t scratch_bytes, cudaStream_t stream);

  // Returns the memory now, stream-ordered on the stream of the last call (which must still
  // exist); the workspace stays usable and grows again on its next use.
  void release() noexcept;

 private:
  void* memory_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t state_slot_capacity_ = 0;
  std::uint32_t epoch_ = 0;
  bool owned_ = true;
  bool zeroed_ = false;
  cudaStream_t last_stream_ = nullptr;
};

}  // namespace scankit
