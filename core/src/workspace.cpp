#include "scankit/workspace.hpp"

#include <string>
#include <utility>

#include "scankit/error.hpp"

namespace scankit {
namespace {
constexpr std::size_t round_up(std::size_t x, std::size_t a) { return (x + a - 1) / a * a; }
}  // namespace

workspace::workspace(void* device_memory, std::size_t bytes)
    : memory_(device_memory), capacity_(bytes), owned_(false) {
  if (device_memory == nullptr && bytes != 0) {
    throw error("scankit::workspace: device_memory is null but bytes = " + std::to_string(bytes));
  }
}

// The destructor cannot know whether the stream of the last call still exists (a caller may have
// destroyed it first), so it does not queue on it: cudaFree waits for the device and frees. Callers
// who want the memory back without that wait call release() while their stream is alive.
workspace::~workspace() {
  if (memory_ != nullptr && owned_) (void)cudaFree(memory_);
}

workspace::workspace(workspace&& other) noexcept { *this = std::move(other); }

workspace& workspace::operator=(workspace&& other) noexcept {
  if (this != &other) {
    release();
    memory_ = std::exchange(other.memory_, nullptr);
    capacity_ = std::exchange(other.capacity_, 0);
    state_slot_capacity_ = std::exchange(other.state_slot_capacity_, 0);
    epoch_ = std::exchange(other.epoch_, 0);
    owned_ = std::exchange(other.owned_, true);
    zeroed_ = std::exchange(other.zeroed_, false);
    last_stream_ = std::exchange(other.last_stream_, nullptr);
  }
  return *this;
}

std::size_t workspace::bytes_needed(std::size_t state_slots, std::size_t scratch_bytes) noexcept {
  return header_bytes + round_up(state_slots * sizeof(std::uint64_t), 256) + round_up(scratch_bytes, 256);
}

void workspace::release() noexcept {
  if (memory_ != nullptr && owned_) {
    (void)cudaFreeAsync(memory_, last_stream_);
  }
  if (owned_) {
    memory_ = nullptr;
    capacity_ = 0;
    state_slot_capacity_ = 0;
  }
  zeroed_ = false;
  epoch_ = 0;
}

workspace_view workspace::prepare(std::size_t state_slots, std::size_t scratch_bytes, cudaStream_t stream) {
  // The state region keeps its high-water size so that slots do not move between calls; whenever
  // the layout changes, the state region is zeroed again before use.
  std::size_t slots = state_slots > state_slot_capacity_ ? state_slots : state_slot_capacity_;
  std::size_t state_bytes = round_up(slots * sizeof(std::uint64_t), 256);
  std::size_t needed = bytes_needed(slots, scratch_bytes);

  if (needed > capacity_) {
    if (!owned_) {
      throw error("scankit::workspace: the caller's workspace holds " + std::to_string(capacity_) +
                  " bytes, this call needs " + std::to_string(needed));
    }
    // Headroom, so that a run of slightly larger calls does not reallocate every time.
    std::size_t grown = needed + needed / 8;
    void* fresh = nullptr;
    SCANKIT_CUDA_CHECK(cudaMallocAsync(&fresh, grown, stream));
    if (memory_ != nullptr) (void)cudaFreeAsync(memory_, last_stream_);
    memory_ = fresh;
    capacity_ = grown;
    zeroed_ = false;
  }
  if (slots != state_slot_capacity_) {
    state_slot_capacity_ = slots;
    zeroed_ = false;
  }
  last_stream_ = stream;

  ++epoch_;
  if (!zeroed_ || epoch_ > max_epoch) {
    SCANKIT_CUDA_CHECK(cudaMemsetAsync(memory_, 0, header_bytes + state_bytes, stream));
    zeroed_ = true;
    epoch_ = 1;
  }

  auto* base = static_cast<unsigned char*>(memory_);
  workspace_view view;
  view.ticket = reinterpret_cast<std::uint32_t*>(base);
  view.state_slots = reinterpret_cast<std::uint64_t*>(base + header_bytes);
  view.scratch = base + header_bytes + state_bytes;
  view.scratch_bytes = capacity_ - header_bytes - state_bytes;
  view.epoch = epoch_;
  return view;
}

}  // namespace scankit
