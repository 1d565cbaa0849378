// The template-API matrix for the staged single-pass kernel (tile in shared memory through the
// bulk-copy engine): shapes from one warp with one chunk (many tiny tiles, a long look-back) to
// the tuned ones, over 1-, 4-, 8- and 16-byte values, two of them non-commutative, with and
// without the look-back warp. The look-back
// strategies run the staged kernel; the others run the tuned register kernel; unaligned arrays
// fall back to the register kernel. The suite itself lives in scan_matrix.cuh.
#include "scan_matrix.cuh"

namespace scankit::testing {

using staged_cases = ::testing::Types<
    staged_matrix_case<32, 1, int32_plus_family>, staged_matrix_case<128, 8, int32_plus_family>,
    staged_matrix_case<256, 4, int32_plus_family>, staged_matrix_case<64, 16, int32_plus_family>,
    staged_matrix_case<32, 2, affine32_family>, staged_matrix_case<128, 8, affine32_family>,
    staged_matrix_case<128, 8, uint8_plus_family>, staged_matrix_case<64, 1, uint8_plus_family>,
    staged_matrix_case<128, 8, affine64_family>, staged_matrix_case<32, 4, affine64_family>,
    // With the look-back warp: one scanning warp on tiny tiles (long look-backs), a block that is
    // not a power of two, and the non-commutative 8- and 16-byte operators.
    staged_matrix_case<32, 1, int32_plus_family, true>, staged_matrix_case<96, 2, affine32_family, true>,
    staged_matrix_case<64, 4, uint8_plus_family, true>, staged_matrix_case<32, 4, affine64_family, true>>;

INSTANTIATE_TYPED_TEST_SUITE_P(Staged, ScanMatrix, staged_cases, matrix_case_name);

}  // namespace scankit::testing
