// The scan lab's precompiled overloads for float.
#include "precompiled_scan_lab.cuh"

SCANKIT_DEFINE_LAB_SCAN(float)

namespace scankit {
scan_kernel_info describe_scan_kernel(const float*, const scan_options& options) {
  return precompiled::describe_lab_scan<float>(options);
}
}  // namespace scankit
