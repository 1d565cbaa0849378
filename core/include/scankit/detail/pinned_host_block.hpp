// Pinned host memory that device values (counts, residuals) are copied into, so that the copy is
// asynchronous and the host can read one while the GPU goes on with later work.
//
// Each thread keeps one small block from its first use (a pinned allocation or release is a point
// where the device's streams synchronise, which a call running beside other streams must not
// add). The block is portable: copies from any device land in it asynchronously. When the thread
// ends, its block goes back to a process-wide free list, not to cudaFreeHost, which would wait for
// every stream of the device; a later thread takes it from there. Blocks live until the process
// ends. Internal to the library.
#pragma once

#include <cstddef>

namespace scankit::detail {

// The block's regions: each caller has its own, so that one algorithm's copies in flight are never
// overwritten by another that a callback starts on the same thread.
enum class pinned_region : int { graph_slots = 0, solver_report = 1 };
constexpr std::size_t pinned_region_bytes = 64;
constexpr int pinned_regions = 2;

// The calling thread's region (pinned_region_bytes, 16-byte aligned). Throws scankit::cuda_error
// when the first allocation of a thread (and no freed block) fails.
void* pinned_host_region(pinned_region region);

}  // namespace scankit::detail
