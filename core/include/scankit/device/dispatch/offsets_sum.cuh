// Device layer, host side: the exclusive sum in place of uint32 or uint64 counts, from which an
// algorithm takes its output offsets (compaction's three-step strategy, the radix sort's
// reduce-then-scan passes). It is the production scan's dispatch (scan_dispatch.cuh) for that
// type and the sum, compiled once in the library beside the precompiled scans of uint32 and uint64
// (core/src/scan/precompiled_scan.cuh), so the algorithms that call it do not compile the scan again.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "scankit/workspace.hpp"

namespace scankit::device_detail {

// offsets[i] = offsets[0] + ... + offsets[i - 1] (0 for i = 0), i < n; ws as the scan's.
template <class T>
void exclusive_offsets_sum(T* offsets, long long n, cudaStream_t stream, workspace* ws);
// The workspace bytes that call needs.
template <class T>
std::size_t exclusive_offsets_sum_workspace_bytes(long long n);

}  // namespace scankit::device_detail
