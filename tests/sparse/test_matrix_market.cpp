// Matrix Market reading and writing on the host: a conformance suite of valid files (every
// format, field and symmetry, comments, blank lines, CRLF, number spellings), a bad-file suite
// (each malformed case with its own message and line), round trips through a file, and the
// parallel parser giving the same triplets and the same first error whatever the thread count.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "scankit/error.hpp"
#include "scankit/sparse/matrix_market.hpp"

namespace {

using scankit::sparse::coo_matrix_host;
using scankit::sparse::matrix_market_header;
using scankit::sparse::mm_field;
using scankit::sparse::mm_format;
using scankit::sparse::mm_symmetry;
using scankit::sparse::parse_matrix_market;

using matrix = coo_matrix_host<std::int32_t, double>;

struct triplet {
  std::int32_t r, c;
  double v;
  bool operator==(const triplet& o) const { return r == o.r && c == o.c && v == o.v; }
};

std::vector<triplet> triplets(const matrix& m) {
  std::vector<triplet> t;
  for (std::size_t k = 0; k < m.nonzeros(); ++k) t.push_back({m.row[k], m.col[k], m.value[k]});
  return t;
}

matrix parse(const std::string& text, unsigned threads = 1, matrix_market_header* h = nullptr) {
  scankit::sparse::matrix_market_read_options options;
  options.threads = threads;
  return parse_matrix_market<std::int32_t, double>(text, options, h);
}

// The error message of parsing `text`, or "" if it parsed.
std::string error_of(const std::string& text, unsigned threads = 1) {
  try {
    parse(text, threads);
  } catch (const scankit::error& e) {
    return e.what();
  }
  return "";
}

TEST(MatrixMarketRead, CoordinateRealGeneral) {
  matrix_market_header h;
  const matrix m = parse(
      "%%MatrixMarket matrix coordinate real general\n"
      "% a comment\n"
      "%\n"
      "3 4 3\n"
      "1 1 1.5\n"
      "3 4 -2e3\n"
      "2 2 +.25\n",
      1, &h);
  EXPECT_EQ(h.format, mm_format::coordinate);
  EXPECT_EQ(h.field, mm_field::real);
  EXPECT_EQ(h.symmetry, mm_symmetry::general);
  EXPECT_EQ(m.rows, 3);
  EXPECT_EQ(m.cols, 4);
  EXPECT_EQ(triplets(m), (std::vector<triplet>{{0, 0, 1.5}, {2, 3, -2000.0}, {1, 1, 0.25}}));
}

TEST(MatrixMarketRead, IntegerAndPatternFieldsCaseAndBlanks) {
  const matrix ints = parse("%%matrixmarket MATRIX Coordinate INTEGER General\n2 2 2\n1 2 7\n\n  2 1   -3  \n");
  EXPECT_EQ(triplets(ints), (std::vector<triplet>{{0, 1, 7.0}, {1, 0, -3.0}}));
  const matrix pattern = parse("%%MatrixMarket matrix coordinate pattern general\r\n2 3 2\r\n1 3\r\n2 1\r\n");
  EXPECT_EQ(triplets(pattern), (std::vector<triplet>{{0, 2, 1.0}, {1, 0, 1.0}}));
}

TEST(MatrixMarketRead, SymmetricAndSkewAreExpanded) {
  const matrix sym = parse("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 4\n3 1 2\n3 3 5\n");
  EXPECT_EQ(triplets(sym), (std::vector<triplet>{{0, 0, 4.0}, {2, 0, 2.0}, {0, 2, 2.0}, {2, 2, 5.0}}));
  const matrix skew = parse("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1.5\n3 2 -2\n");
  EXPECT_EQ(triplets(skew), (std::vector<triplet>{{1, 0, 1.5}, {0, 1, -1.5}, {2, 1, -2.0}, {1, 2, 2.0}}));
}

TEST(MatrixMarketRead, ArrayFormat) {
  const matrix general = parse("%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n");
  EXPECT_EQ(triplets(general), (std::vector<triplet>{{0, 0, 1}, {1, 0, 2}, {0, 1, 3}, {1, 1, 4}, {0, 2, 5}, {1, 2, 6}}));
  const matrix sym = parse("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n");
  EXPECT_EQ(triplets(sym), (std::vector<triplet>{{0, 0, 1}, {1, 0, 2}, {0, 1, 2}, {1, 1, 3}}));
  const matrix skew = parse("%%MatrixMarket matrix array integer skew-symmetric\n3 3\n1\n2\n3\n");
  EXPECT_EQ(triplets(skew), (std::vector<triplet>{{1, 0, 1}, {0, 1, -1}, {2, 0, 2}, {0, 2, -2}, {2, 1, 3}, {1, 2, -3}}));
}

TEST(MatrixMarketRead, EmptyMatrixAndNoTrailingNewline) {
  EXPECT_EQ(parse("%%MatrixMarket matrix coordinate real general\n5 5 0\n").nonzeros(), 0u);
  EXPECT_EQ(triplets(parse("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 9")),
            (std::vector<triplet>{{0, 0, 9.0}}));
}

// Each malformed file: its own message, naming the line.
TEST(MatrixMarketRead, BadFilesNameTheLine) {
  const std::string banner = "%%MatrixMarket matrix coordinate real general\n";
  struct bad {
    std::string text, expected;
  };
  const std::vector<bad> cases = {
      {"", "<text>:1: not a Matrix Market file"},
      {"%MatrixMarket matrix coordinate real general\n1 1 0\n", "<text>:1: not a Matrix Market file"},
      {"%%MatrixMarket matrix coordinate real\n", "<text>:1: the banner needs"},
      {"%%MatrixMarket vector coordinate real general\n", "<text>:1: object 'vector'"},
      {"%%MatrixMarket matrix sparse real general\n", "<text>:1: unknown format 'sparse' (coordinate, array)"},
      {"%%MatrixMarket matrix coordinate complex general\n", "<text>:1: complex matrices are not supported"},
      {"%%MatrixMarket matrix coordinate real hermitian\n", "<text>:1: hermitian matrices"},
      {"%%MatrixMarket matrix coordinate real upper\n", "<text>:1: unknown symmetry 'upper' (general, symmetric, skew-symmetric)"},
      {"%%MatrixMarket matrix coordinate quaternion general\n", "<text>:1: unknown field 'quaternion' (real, integer, pattern)"},
      {"%%MatrixMarket matrix array pattern general\n", "<text>:1: an array file cannot have the pattern field"},
      {banner + "% only comments\n", "<text>:2: the file ends before the size line"},
      {banner + "3 3\n", "<text>:2: the size line needs three"},
      {banner + "3 -3 1\n", "<text>:2: the size line needs three"},
      {banner + "3 3 1 9\n", "<text>:2: the size line needs three"},
      {banner + "3 x 1\n", "<text>:2: the size line needs three"},
      {"%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", "<text>:2: a symmetric or skew-symmetric matrix must be square"},
      {banner + "3 3 2\n1 1 1\n", "<text>:3: the file ends after 1 of 2 entries"},
      {banner + "3 3 1\n1 1 1\n2 2 2\n", "<text>:4: more entries than the 1"},
      {banner + "3 3 2\n1 1 1\n4 1 1\n", "<text>:4: row index 4 is out of range [1, 3]"},
      {banner + "3 3 1\n1 0 1\n", "<text>:3: column index 0 is out of range [1, 3]"},
      {banner + "3 3 1\n1 1 abc\n", "<text>:3: expected a real value"},
      {banner + "3 3 1\n1 1\n", "<text>:3: expected a real value"},
      {banner + "3 3 1\n1.5 1 1\n", "<text>:3: expected a row and a column index"},
      {banner + "3 3 1\n1 1 1 1\n", "<text>:3: unexpected text after the entry"},
      {"%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 2.5\n", "<text>:3: expected an integer value"},
      {"%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n", "<text>:3: an entry above the diagonal"},
      {"%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n", "<text>:3: an entry on or above the diagonal"},
      {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", "<text>:5: the file ends after 3 of 4 entries"},
      {"%%MatrixMarket matrix array real symmetric\n4000000000 4000000000\n", "<text>:2: the matrix is too large"},
  };
  for (const bad& b : cases) {
    SCOPED_TRACE(b.text);
    const std::string message = error_of(b.text);
    EXPECT_EQ(message.rfind(b.expected, 0), 0u) << "got: " << message;
  }
}

TEST(MatrixMarketRead, IndicesBeyondTheIndexType) {
  const std::string text = "%%MatrixMarket matrix coordinate real general\n3000000000 2 0\n";
  EXPECT_THROW((parse_matrix_market<std::int32_t, float>(text)), scankit::error);
  EXPECT_EQ((parse_matrix_market<std::int64_t, float>(text).rows), 3000000000ll);
}

// A large random file: the same triplets, and the same first error, with 1, 3 and 8 threads.
TEST(MatrixMarketRead, ThreadCountDoesNotChangeTheResult) {
  std::mt19937_64 rng(7);
  const int entries = 400000;
  std::string text = "%%MatrixMarket matrix coordinate real general\n% generated\n1000 2000 " +
                     std::to_string(entries) + "\n";
  for (int k = 0; k < entries; ++k) {
    text += std::to_string(rng() % 1000 + 1) + " " + std::to_string(rng() % 2000 + 1) + " " +
            std::to_string(static_cast<double>(rng() % 100000) / 7.0) + (k % 1000 == 0 ? "\n\n" : "\n");
  }
  const auto one = triplets(parse(text, 1));
  ASSERT_EQ(one.size(), static_cast<std::size_t>(entries));
  for (unsigned threads : {3u, 8u}) EXPECT_EQ(triplets(parse(text, threads)), one) << threads << " threads";

  // Two bad lines far apart: the first one is reported, whichever thread saw it.
  std::string bad = text;
  const std::size_t late = bad.rfind("\n", bad.size() - 2);
  bad.insert(late + 1, "0 0 0\n");  // also one entry too many: the bad index comes first
  const std::size_t early = bad.find('\n', bad.find('\n', bad.find('\n', bad.find('\n') + 1) + 1) + 1);
  bad.insert(early + 1, "1 1 x\n");
  const std::string expected = error_of(bad, 1);
  EXPECT_EQ(expected.rfind("<text>:5: expected a real value", 0), 0u) << expected;
  for (unsigned threads : {3u, 8u}) EXPECT_EQ(error_of(bad, threads), expected) << threads << " threads";
}

TEST(MatrixMarketWrite, RoundTripsThroughAFile) {
  coo_matrix_host<std::int64_t, float> m;
  m.rows = 5;
  m.cols = 7;
  m.row = {0, 4, 2, 2};
  m.col = {6, 0, 3, 3};
  m.value = {0.1f, -1e-30f, 3.4028235e38f, 1.0f / 3.0f};
  const std::string path = ::testing::TempDir() + "scankit_mm_roundtrip.mtx";
  scankit::sparse::write_matrix_market(path, m);
  const auto back = scankit::sparse::read_matrix_market<std::int64_t, float>(path);
  EXPECT_EQ(back.rows, m.rows);
  EXPECT_EQ(back.cols, m.cols);
  EXPECT_EQ(back.row, m.row);
  EXPECT_EQ(back.col, m.col);
  EXPECT_EQ(back.value, m.value);  // bit for bit: the shortest text that reads back the same float
  scankit::sparse::write_matrix_market(path, m, mm_field::pattern);
  matrix_market_header h;
  const auto pattern = scankit::sparse::read_matrix_market<std::int64_t, float>(path, {}, &h);
  EXPECT_EQ(h.field, mm_field::pattern);
  EXPECT_EQ(pattern.value, std::vector<float>(4, 1.0f));
  std::remove(path.c_str());
}

TEST(MatrixMarketRead, MissingFileAndBadTripletsOnWrite) {
  EXPECT_THROW((scankit::sparse::read_matrix_market<std::int32_t, double>("/nonexistent/x.mtx")), scankit::error);
  matrix m;
  m.rows = 2;
  m.cols = 2;
  m.row = {0, 2};
  m.col = {0, 0};
  m.value = {1, 2};
  EXPECT_THROW(scankit::sparse::write_matrix_market(::testing::TempDir() + "scankit_mm_bad.mtx", m), scankit::error);
}

}  // namespace
