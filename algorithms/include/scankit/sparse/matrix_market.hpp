// Matrix Market files (https://math.nist.gov/MatrixMarket/formats.html): read into host
// coordinate triplets, written from them. Plain C++ (g++); the reader parses in parallel.
//
//   read_matrix_market<Index, Value>(path)   a whole file, or
//   parse_matrix_market<Index, Value>(text)  text already in memory
//     -> coo_matrix_host<Index, Value>: 0-based (row, column, value) triplets in file order
//   write_matrix_market(path, matrix)        coordinate, general, real / integer / pattern
//
// What is read: the "matrix" object in coordinate or array format; real, integer and pattern
// fields; general, symmetric and skew-symmetric matrices (the stored triangle is expanded: the
// mirror entry follows each off-diagonal one, negated when skew-symmetric); 1-based indices;
// comment lines and blank lines. Complex fields and Hermitian matrices are rejected. An array
// file becomes one triplet per listed entry (zeros included), in column-major order.
//
// Errors. A malformed file (a bad banner, a size line that is not three (or two, for arrays)
// non-negative integers, an index out of range, a value that is not a number, fewer or more
// entries than declared, sizes beyond the index type) throws scankit::error naming the file (or
// "<text>") and the line; nothing is returned half-built. A file that cannot be opened throws
// scankit::error too.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace scankit::sparse {

// Coordinate triplets on the host, 0-based.
template <class Index, class Value>
struct coo_matrix_host {
  Index rows = 0;
  Index cols = 0;
  std::vector<Index> row;
  std::vector<Index> col;
  std::vector<Value> value;

  std::size_t nonzeros() const { return value.size(); }
};

enum class mm_format { coordinate, array };
enum class mm_field { real, integer, pattern };
enum class mm_symmetry { general, symmetric, skew_symmetric };

// What the banner and the size line say.
struct matrix_market_header {
  mm_format format = mm_format::coordinate;
  mm_field field = mm_field::real;
  mm_symmetry symmetry = mm_symmetry::general;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t entries = 0;  // listed in the file (coordinate: the size line's third number)
};

struct matrix_market_read_options {
  // Threads that parse the entries (0: std::thread::hardware_concurrency()).
  unsigned threads = 0;
};

// Index: std::int32_t or std::int64_t; Value: float or double.
template <class Index, class Value>
coo_matrix_host<Index, Value> read_matrix_market(const std::string& path, const matrix_market_read_options& options = {},
                                                 matrix_market_header* header = nullptr);

template <class Index, class Value>
coo_matrix_host<Index, Value> parse_matrix_market(std::string_view text, const matrix_market_read_options& options = {},
                                                  matrix_market_header* header = nullptr,
                                                  const std::string& source_name = "<text>");

// METIS graph files (the format of gpmetis, and of the graphs Debian's libmetis-doc ships): the
// header "n m [fmt [ncon]]", then one line per vertex listing its neighbours (1-based), with
// vertex sizes, vertex weights and edge weights as fmt says. The result is the n x n adjacency
// matrix: one triplet per listed neighbour (so both directions of every undirected edge), valued
// by the edge weight or 1; vertex sizes and weights are read and dropped. Errors as for Matrix
// Market files (a neighbour out of range, a line that is not numbers, fewer vertex lines or
// adjacency entries than the header declares).
template <class Index, class Value>
coo_matrix_host<Index, Value> read_metis_graph(const std::string& path);

template <class Index, class Value>
coo_matrix_host<Index, Value> parse_metis_graph(std::string_view text, const std::string& source_name = "<text>");

// Writes coordinate general triplets, 1-based; values with enough digits to read back the same
// (max_digits10). mm_field::pattern writes no values.
template <class Index, class Value>
void write_matrix_market(const std::string& path, const coo_matrix_host<Index, Value>& matrix,
                         mm_field field = mm_field::real);

}  // namespace scankit::sparse
