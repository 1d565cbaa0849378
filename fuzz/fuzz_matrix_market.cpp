// libFuzzer target: any bytes through the Matrix Market and METIS readers. A malformed input must
// end in scankit::error, never in a crash, a hang or an out-of-bounds access; a well-formed one
// must give triplets inside the matrix. Build with clang (fuzz/CMakeLists.txt, SCANKIT_FUZZ=ON).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "scankit/error.hpp"
#include "scankit/sparse/matrix_market.hpp"

namespace {

template <class M>
void check_inside(const M& m) {
  for (std::size_t k = 0; k < m.nonzeros(); ++k) {
    if (m.row[k] < 0 || m.row[k] >= m.rows || m.col[k] < 0 || m.col[k] >= m.cols) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  scankit::sparse::matrix_market_read_options options;
  options.threads = 1 + (size % 3);  // the chunking paths too
  try {
    check_inside(scankit::sparse::parse_matrix_market<std::int32_t, double>(text, options));
  } catch (const scankit::error&) {
  }
  try {
    check_inside(scankit::sparse::parse_metis_graph<std::int32_t, float>(text));
  } catch (const scankit::error&) {
  }
  return 0;
}
