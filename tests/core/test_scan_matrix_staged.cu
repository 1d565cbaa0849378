// The template-API matrix for the staged single-pass kernel (tile in shared memory through the
// bulk-copy engine): shapes from one warp with one chunk (many tiny tiles, a long look-back) to
// the tuned ones, over 1-, 4-, 8- and 16-byte values, two of them non-commutative. The look-back
// strategies run the staged kernel; the others run the tuned register kernel; unaligned arrays
// fall back to the register kernel. The suite itself lives in scan_matrix.cuh.
#include "scan_matrix.cuh"

namespace scankit::testing {

using staged_cases = ::testing::Types<
    staged_matrix_case<32, 1, int32_plus_family>, staged_matrix_case<128, 8, int32_plus_family>,
    staged_matrix_case<256, 4, int32_plus_family>, staged_matrix_case<64, 16, int32_plus_family>,
    staged_matrix_case<32, 2, affine32_family>, staged_matrix_case<128, 8, affine32_family>,
    staged_matrix_case<128, 8, uint8_plus_family>, staged_matrix_case<64, 1, uint8_plus_family>,
    staged_matrix_case<128, 8, affine64_family>, staged_matrix_case<32, 4, affine64_family>>;

INSTANTIATE_TYPED_TEST_SUITE_P(Staged, ScanMatrix, staged_cases, matrix_case_name);

}  // namespace scankit::testing
