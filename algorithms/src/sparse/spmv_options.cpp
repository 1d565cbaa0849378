// Names of the SpMV kernels (scankit/sparse/spmv.hpp).
#include "scankit/sparse/spmv.hpp"

namespace scankit::sparse {

const char* to_string(spmv_kernel kernel) {
  switch (kernel) {
    case spmv_kernel::automatic: return "automatic";
    case spmv_kernel::merge_path: return "merge_path";
    case spmv_kernel::vector: return "vector";
  }
  return "unknown";
}

}  // namespace scankit::sparse
