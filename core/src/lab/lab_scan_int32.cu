// The scan lab's precompiled overloads for int32.
#include "precompiled_scan_lab.cuh"

SCANKIT_DEFINE_LAB_SCAN(std::int32_t)

namespace scankit {
scan_kernel_info describe_scan_kernel(const std::int32_t*, const scan_options& options) {
  return precompiled::describe_lab_scan<std::int32_t>(options);
}
}  // namespace scankit
