// Precompiled scan overloads for int32.
#include "precompiled_scan.cuh"

SCANKIT_DEFINE_PRECOMPILED_SCAN(std::int32_t)

namespace scankit {
scan_kernel_info describe_scan_kernel(const std::int32_t*, const scan_options& options) {
  return precompiled::describe<std::int32_t>(options);
}
}  // namespace scankit
