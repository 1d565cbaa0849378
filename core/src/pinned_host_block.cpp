#include "scankit/detail/pinned_host_block.hpp"

#include <mutex>
#include <vector>

#include <cuda_runtime_api.h>

#include "scankit/error.hpp"

namespace scankit::detail {
namespace {

// Never destroyed: a thread may end (and return its block) after static destructors have run.
struct free_blocks {
  std::mutex mutex;
  std::vector<void*> blocks;
};
free_blocks& freed() {
  static auto* list = new free_blocks;
  return *list;
}

struct thread_block {
  void* memory = nullptr;
  ~thread_block() {
    if (memory == nullptr) return;
    free_blocks& list = freed();
    const std::lock_guard<std::mutex> lock(list.mutex);
    list.blocks.push_back(memory);
  }
};

}  // namespace

void* pinned_host_region(pinned_region region) {
  thread_local thread_block mine;
  if (mine.memory == nullptr) {
    {
      free_blocks& list = freed();
      const std::lock_guard<std::mutex> lock(list.mutex);
      if (!list.blocks.empty()) {
        mine.memory = list.blocks.back();
        list.blocks.pop_back();
      }
    }
    if (mine.memory == nullptr) {
      SCANKIT_CUDA_CHECK(cudaHostAlloc(&mine.memory, pinned_regions * pinned_region_bytes, cudaHostAllocPortable));
    }
  }
  return static_cast<char*>(mine.memory) + static_cast<int>(region) * pinned_region_bytes;
}

}  // namespace scankit::detail
