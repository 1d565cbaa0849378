#include "scankit/workspace.hpp"

#include <string>
#include <utility>

#include "scankit/error.hpp"

namespace scankit {
namespace {
constexpr std::size_t round_up(std::size_t x, std::size_t a) { return (x + a - 1) / a * a; }
}  // namespace

workspace::workspace(void* device_memory, std::size_t bytes)
    : resource_(default_resource()), wrapped_(device_memory), capacity_(bytes), owned_(false) {
  if (device_memory == nullptr && bytes != 0) {
    throw error("scankit::workspace: device_memory is null but bytes = " + std::to_string(bytes));
  }
}

workspace::workspace(workspace&& other) noexcept { *this = std::move(other); }

workspace& workspace::operator=(workspace&& other) noexcept {
  if (this != &other) {
    release();
    resource_ = other.resource_;
    owned_memory_ = std::move(other.owned_memory_);
    wrapped_ = std::exchange(other.wrapped_, nullptr);
    capacity_ = std::exchange(other.capacity_, 0);
    state_slot_capacity_ = std::exchange(other.state_slot_capacity_, 0);
    owned_ = std::exchange(other.owned_, true);
    zeroed_ = std::exchange(other.zeroed_, false);
  }
  return *this;
}

std::size_t workspace::bytes_needed(std::size_t state_slots, std::size_t scratch_bytes) noexcept {
  return header_bytes + round_up(state_slots * sizeof(std::uint64_t), 256) + round_up(scratch_bytes, 256);
}

void workspace::release() noexcept {
  if (owned_) {
    owned_memory_.reset();  // stream-ordered on the last call's stream
    capacity_ = 0;
    state_slot_capacity_ = 0;
  }
  zeroed_ = false;
}

bool workspace::ready_for(std::size_t state_slots, std::size_t scratch_bytes) const noexcept {
  return memory() != nullptr && zeroed_ && state_slots <= state_slot_capacity_ &&
         bytes_needed(state_slot_capacity_, scratch_bytes) <= capacity_;
}

workspace_view workspace::prepare(std::size_t state_slots, std::size_t scratch_bytes, cudaStream_t stream) {
  // The state region keeps its high-water size, so that calls of different sizes do not re-zero
  // it; when that no longer fits wrapped memory, it shrinks to what this call needs.
  std::size_t slots = state_slots > state_slot_capacity_ ? state_slots : state_slot_capacity_;
  if (!owned_ && bytes_needed(slots, scratch_bytes) > capacity_) slots = state_slots;
  const std::size_t needed = bytes_needed(slots, scratch_bytes);

  if (needed > capacity_) {
    if (!owned_) {
      throw error("scankit::workspace: the caller's workspace holds " + std::to_string(capacity_) +
                  " bytes, this call needs " + std::to_string(needed));
    }
    // Headroom, so that a run of slightly larger calls does not reallocate every time. The new
    // memory is taken before the old goes back (on the last call's stream).
    const std::size_t grown = needed + needed / 8;
    owned_memory_ = device_buffer(grown, stream, resource_);
    capacity_ = grown;
    zeroed_ = false;
  }
  if (slots != state_slot_capacity_) {
    state_slot_capacity_ = slots;
    zeroed_ = false;
  }
  if (owned_) owned_memory_.set_stream(stream);  // returned behind this call's work

  const std::size_t state_bytes = round_up(slots * sizeof(std::uint64_t), 256);
  if (!zeroed_) {
    SCANKIT_CUDA_CHECK(cudaMemsetAsync(memory(), 0, header_bytes + state_bytes, stream));
    zeroed_ = true;
  }

  auto* base = static_cast<unsigned char*>(memory());
  workspace_view view;
  view.header = base;
  view.state_slots = reinterpret_cast<std::uint64_t*>(base + header_bytes);
  view.state_slot_count = slots;
  view.scratch = base + header_bytes + state_bytes;
  view.scratch_bytes = capacity_ - header_bytes - state_bytes;
  return view;
}

namespace detail {

bool stream_is_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  SCANKIT_CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
  return status != cudaStreamCaptureStatusNone;
}

workspace_lease::workspace_lease(workspace* ws, std::size_t state_slots, std::size_t scratch_bytes,
                                 cudaStream_t stream)
    : temporary_(resource_for_call(stream)) {
  storage_ = ws != nullptr ? ws : &temporary_;
  if (state_slots == 0 && scratch_bytes == 0) return;  // nothing to hold: the view stays empty
  // A captured call must not change the caller's workspace: the change (allocation, zeroing) would
  // happen on the host now but on the device only when the graph runs, if ever.
  if (ws != nullptr && !ws->ready_for(state_slots, scratch_bytes) && stream_is_capturing(stream)) {
    storage_ = &temporary_;
  }
  view_ = storage_->prepare(state_slots, scratch_bytes, stream);
}

}  // namespace detail
}  // namespace scankit
