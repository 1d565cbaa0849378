// The GPU generations the tuning tables (tuning_*.cuh) have an entry for, and the one whose entry
// the library runs. Every table's sm_90 entry is measured (on an H200); the sm_80, sm_89 and
// sm_100 entries are declared as sm_90's until a GPU of that generation measures its own. While
// they are the same, every GPU runs the sm_90 entry; an entry that differs will be chosen by the
// device's compute capability at run time, where the staged and register kernels are chosen now
// (scankit/device_features.hpp).
#pragma once

namespace scankit::device_detail::tuning {

enum class gpu_arch { sm80, sm89, sm90, sm100 };

constexpr gpu_arch tuned_arch = gpu_arch::sm90;

}  // namespace scankit::device_detail::tuning
