// What the GPU offers that scankit's kernels choose between at run time. Plain C++.
//
// scankit builds for sm_80, sm_89, sm_90 and sm_100 by default. On sm_90 and later the
// single-pass scan and compaction stage each tile in shared memory with the bulk-copy engine
// (TMA); GPUs before that (A100, L40, RTX 40) run the register kernels, which give the same
// results.
#pragma once

namespace scankit {

// Whether the current device (cudaGetDevice) has the bulk-copy engine and scankit will use it.
// False without a device, and while portable kernels are forced.
bool staged_kernels_available();
// The same for a given device ordinal (saves the cudaGetDevice where the caller has asked already).
bool staged_kernels_available(int device);

// Forces the kernels every supported GPU runs (the register kernels), as on GPUs before Hopper;
// for tests and comparisons. Process-wide; takes effect on the next call.
void force_portable_kernels(bool force) noexcept;
bool portable_kernels_forced() noexcept;

}  // namespace scankit
