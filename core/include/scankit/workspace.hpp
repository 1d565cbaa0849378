// Caller-owned temporary storage for scankit's device algorithms, reusable across calls.
//
// Layout of the one allocation:
//   [header: 256 bytes]  the single-pass kernels' ticket word (tile ids and the launch epoch,
//                        advanced by the kernels themselves: nothing is decided on the host)
//   [state slots]        8 bytes per tile; the low 4 bytes of every slot only ever hold a tile
//                        status tagged with a launch epoch (or zero), so a stale slot can never be
//                        mistaken for a status of the current launch
//   [scratch]            anything else: tile totals, large payloads, recursion levels
// Whenever the state region changes size it is zeroed (with the header) before use; otherwise
// single-pass launches need no initialisation.
//
// Memory: an owning workspace takes its memory from a device_memory_resource (the default
// resource when it was constructed, unless given one) and returns it stream-ordered on the stream
// of its last call, when it grows, on release() and in its destructor, without waiting for the
// device. That stream must still exist when the workspace is destroyed or released: destroy the
// workspace first, or call release() before destroying the stream.
//
// A workspace serves one stream at a time: two launches that share a workspace must be ordered
// (same stream, or synchronised streams).
//
// CUDA graphs: a call captured into a graph uses the workspace only if it already holds the
// call's layout (a warmed workspace: an earlier call of the same or a larger size); otherwise the
// captured call takes its own temporary storage, allocated and freed inside the graph, and leaves
// the workspace untouched. A graph that uses a workspace holds its memory: keep the workspace
// alive, and make no call on it that grows it, while the graph may still run.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "scankit/device_buffer.hpp"
#include "scankit/memory_resource.hpp"

namespace scankit {

// What a kernel needs to know about the prepared workspace.
struct workspace_view {
  void* header = nullptr;                // the single-pass header (device_detail::single_pass_header)
  std::uint64_t* state_slots = nullptr;  // one slot per tile (two for 8-byte aggregates)
  std::size_t state_slot_count = 0;      // slots in the state region (>= what the call asked for)
  void* scratch = nullptr;               // 256-byte aligned
  std::size_t scratch_bytes = 0;
};

class workspace {
 public:
  static constexpr std::size_t header_bytes = 256;

  // An empty workspace: memory is taken on first use, on the call's stream, from the default
  // resource as it is now.
  workspace() noexcept : resource_(default_resource()) {}
  // An empty workspace that takes its memory from `resource` (nullptr: the default resource).
  explicit workspace(device_memory_resource* resource) noexcept
      : resource_(resource != nullptr ? resource : default_resource()) {}
  // Wraps memory the caller allocated (device memory, at least `bytes`, kept alive by the caller).
  // It is zeroed (stream-ordered) on first use. A call that needs more than `bytes` throws.
  workspace(void* device_memory, std::size_t bytes);
  // Returns owned memory stream-ordered on the stream of the last call (see above).
  ~workspace() { release(); }

  workspace(const workspace&) = delete;
  workspace& operator=(const workspace&) = delete;
  workspace(workspace&& other) noexcept;
  workspace& operator=(workspace&& other) noexcept;

  std::size_t capacity_bytes() const noexcept { return capacity_; }
  // Where owned memory comes from (unused for wrapped caller memory).
  device_memory_resource* resource() const noexcept { return resource_; }

  // Bytes a call needs for `state_slots` tile slots and `scratch_bytes` of scratch.
  static std::size_t bytes_needed(std::size_t state_slots, std::size_t scratch_bytes) noexcept;

  // Makes sure the workspace holds at least this much (growing it stream-ordered on `stream`) and
  // returns the view for one launch sequence. Wrapped caller memory of bytes_needed(state_slots,
  // scratch_bytes) always suffices, whatever earlier calls it served. Throws scankit::cuda_error
  // on allocation failure and scankit::error if wrapped memory is too small.
  workspace_view prepare(std::size_t state_slots, std::size_t scratch_bytes, cudaStream_t stream);

  // Whether prepare() would serve this call without changing anything (no allocation, no
  // re-layout, no zeroing): what a call captured into a CUDA graph needs to use the workspace.
  bool ready_for(std::size_t state_slots, std::size_t scratch_bytes) const noexcept;

  // Returns the memory now, stream-ordered on the stream of the last call (which must still
  // exist); the workspace stays usable and grows again on its next use.
  void release() noexcept;

 private:
  void* memory() const noexcept { return owned_ ? owned_memory_.data() : wrapped_; }

  device_memory_resource* resource_ = nullptr;
  device_buffer owned_memory_;  // returned on the stream of the last call (set_stream)
  void* wrapped_ = nullptr;     // the caller's memory (owned_ false)
  std::size_t capacity_ = 0;
  std::size_t state_slot_capacity_ = 0;
  bool owned_ = true;
  bool zeroed_ = false;
};

namespace detail {

// The storage of one call: the caller's workspace, or a temporary one that is freed
// stream-ordered when the lease ends (after the call's launches are enqueued). The temporary one
// serves calls without a workspace, and calls captured into a CUDA graph that the caller's
// workspace cannot serve unchanged (workspace::ready_for): inside a graph the temporary
// allocation and its release become graph nodes, so every replay gets and returns its own.
class workspace_lease {
 public:
  workspace_lease(workspace* ws, std::size_t state_slots, std::size_t scratch_bytes, cudaStream_t stream);
  ~workspace_lease() = default;  // the temporary workspace returns its memory stream-ordered
  workspace_lease(const workspace_lease&) = delete;
  workspace_lease& operator=(const workspace_lease&) = delete;

  const workspace_view& view() const noexcept { return view_; }
  workspace& storage() noexcept { return *storage_; }

 private:
  workspace temporary_;
  workspace* storage_ = nullptr;
  workspace_view view_{};
};

// Whether `stream` is being captured into a CUDA graph.
bool stream_is_capturing(cudaStream_t stream);

}  // namespace detail
}  // namespace scankit
