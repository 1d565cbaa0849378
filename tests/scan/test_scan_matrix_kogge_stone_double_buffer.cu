// The template-API matrix (strategies x shapes x {int32 plus, affine composition}) for the
// kogge_stone_double_buffer block scan. The suite itself lives in scan_matrix.cuh.
#include "scan_matrix.cuh"

namespace scankit::testing {

INSTANTIATE_TYPED_TEST_SUITE_P(KoggeStoneDoubleBuffer, ScanMatrix, matrix_cases<block_scan_algorithm::kogge_stone_double_buffer>, matrix_case_name);

}  // namespace scankit::testing
