// Precompiled scan overloads for float.
#include "precompiled_scan.cuh"

SCANKIT_DEFINE_PRECOMPILED_SCAN(float)

namespace scankit {
scan_kernel_info describe_scan_kernel(const float*, const scan_options& options) {
  return precompiled::describe<float>(options);
}
}  // namespace scankit
