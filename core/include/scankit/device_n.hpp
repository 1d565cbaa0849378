// A length held in device memory: for calls whose input length an earlier step produced on the
// GPU (the count written by select, unique, reduce-by-key, ...), so that a pipeline never waits
// for the host and can be captured whole into one CUDA graph.
//
//   std::int64_t* d_kept;                                  // written by the previous call
//   scankit::select_flagged(in, flags, kept, d_kept, n, stream);
//   scankit::inclusive_scan(kept, out, scankit::device_n{d_kept, n}, scankit::scan_op::plus, stream);
//
// `bound` is a host upper bound on the count: it sizes the grids and the workspace, and the
// arrays must hold `bound` items as for a call with n = bound. The count itself is read on the
// device when the call's kernels run (stream-ordered after whatever wrote it), and the call
// processes min(max(*count, 0), bound) items: a count outside [0, bound] is clamped, never a
// write past the arrays. The count may not be written by the same call (it is checked where the
// call has a count output). Bad arguments (a negative bound, a null count) throw scankit::error
// before anything is enqueued. The launches take the bound's grid, so a count far below the
// bound costs the blocks that find nothing to do (a few microseconds per 2^24 bound items).
#pragma once

#include <cstdint>

namespace scankit {

struct device_n {
  const std::int64_t* count = nullptr;  // device memory; read by the kernels when they run
  std::int64_t bound = 0;               // host upper bound on *count
};

}  // namespace scankit
