// Poisson stencils and R-MAT graphs (scankit/sparse/generators.hpp).
#include "scankit/sparse/generators.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "scankit/error.hpp"

namespace scankit::sparse {
namespace {

template <class Index>
void check_fits(const char* function, std::int64_t rows, std::int64_t nonzeros) {
  if (rows > std::numeric_limits<Index>::max() || nonzeros < 0) {
    throw error(std::string(function) + ": " + std::to_string(rows) + " rows do not fit the index type");
  }
}

// The stencil matrix of an n^dimensions grid before its entries: checked sizes, arrays reserved.
template <class Index, class Value>
coo_matrix_host<Index, Value> empty_stencil_matrix(const char* function, std::int64_t n, int dimensions,
                                                  int neighbours) {
  if (n < 0) throw error(std::string(function) + ": n = " + std::to_string(n) + " is negative");
  // n^dimensions rows must fit the index type (checked in floating point first: no overflow).
  if (static_cast<double>(n) > std::pow(static_cast<double>(std::numeric_limits<Index>::max()), 1.0 / dimensions)) {
    throw error(std::string(function) + ": n = " + std::to_string(n) + " gives more rows than the index type holds");
  }
  std::int64_t rows = 1, face = 1;
  for (int d = 0; d < dimensions; ++d) rows *= n;
  for (int d = 1; d < dimensions; ++d) face *= n;
  // Every row has neighbours + 1 entries, less one per grid boundary it lies on.
  const std::int64_t nonzeros = (neighbours + 1) * rows - neighbours * face;
  check_fits<Index>(function, rows, nonzeros);
  coo_matrix_host<Index, Value> m;
  m.rows = m.cols = static_cast<Index>(rows);
  m.row.reserve(static_cast<std::size_t>(nonzeros));
  m.col.reserve(static_cast<std::size_t>(nonzeros));
  m.value.reserve(static_cast<std::size_t>(nonzeros));
  return m;
}

// A stateless 64-bit mix (splitmix64's finaliser): random bits from a counter.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A uniform double in [0, 1) from 53 random bits.
double unit(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

template <class Index, class Value>
void push(coo_matrix_host<Index, Value>& m, std::int64_t r, std::int64_t c, Value v) {
  m.row.push_back(static_cast<Index>(r));
  m.col.push_back(static_cast<Index>(c));
  m.value.push_back(v);
}

}  // namespace

template <class Index, class Value>
coo_matrix_host<Index, Value> poisson_2d(std::int64_t n) {
  auto m = empty_stencil_matrix<Index, Value>("scankit::sparse::poisson_2d", n, 2, 4);
  for (std::int64_t y = 0; y < n; ++y) {
    for (std::int64_t x = 0; x < n; ++x) {
      const std::int64_t r = y * n + x;  // neighbours in column order: up, left, self, right, down
      if (y > 0) push(m, r, r - n, Value(-1));
      if (x > 0) push(m, r, r - 1, Value(-1));
      push(m, r, r, Value(4));
      if (x + 1 < n) push(m, r, r + 1, Value(-1));
      if (y + 1 < n) push(m, r, r + n, Value(-1));
    }
  }
  return m;
}

template <class Index, class Value>
coo_matrix_host<Index, Value> poisson_3d(std::int64_t n) {
  auto m = empty_stencil_matrix<Index, Value>("scankit::sparse::poisson_3d", n, 3, 6);
  const std::int64_t plane = n * n;
  for (std::int64_t z = 0; z < n; ++z) {
    for (std::int64_t y = 0; y < n; ++y) {
      for (std::int64_t x = 0; x < n; ++x) {
        const std::int64_t r = (z * n + y) * n + x;
        if (z > 0) push(m, r, r - plane, Value(-1));
        if (y > 0) push(m, r, r - n, Value(-1));
        if (x > 0) push(m, r, r - 1, Value(-1));
        push(m, r, r, Value(6));
        if (x + 1 < n) push(m, r, r + 1, Value(-1));
        if (y + 1 < n) push(m, r, r + n, Value(-1));
        if (z + 1 < n) push(m, r, r + plane, Value(-1));
      }
    }
  }
  return m;
}

template <class Index, class Value>
coo_matrix_host<Index, Value> rmat(const rmat_parameters& p) {
  const double d = 1.0 - p.a - p.b - p.c;
  if (p.scale < 0 || p.scale > 40 || p.edge_factor < 0 || p.a < 0 || p.b < 0 || p.c < 0 || d < 0) {
    throw error("scankit::sparse::rmat: scale must be 0..40, edge_factor >= 0, and a, b, c, 1 - a - b - c >= 0");
  }
  const std::int64_t vertices = std::int64_t{1} << p.scale;
  const std::int64_t edges = vertices * p.edge_factor;
  check_fits<Index>("scankit::sparse::rmat", vertices, edges);
  coo_matrix_host<Index, Value> m;
  m.rows = m.cols = static_cast<Index>(vertices);
  m.row.resize(static_cast<std::size_t>(edges));
  m.col.resize(static_cast<std::size_t>(edges));
  m.value.assign(static_cast<std::size_t>(edges), Value(1));
  const std::uint64_t stream = mix(p.seed);
  for (std::int64_t k = 0; k < edges; ++k) {
    std::int64_t r = 0, c = 0;
    for (int level = 0; level < p.scale; ++level) {
      const double u = unit(mix(stream ^ mix(static_cast<std::uint64_t>(k) * 64 + static_cast<std::uint64_t>(level))));
      const bool down = u >= p.a + p.b;                         // quadrants c or d
      const bool right = down ? u >= p.a + p.b + p.c : u >= p.a;  // quadrants b or d
      r = (r << 1) | (down ? 1 : 0);
      c = (c << 1) | (right ? 1 : 0);
    }
    m.row[static_cast<std::size_t>(k)] = static_cast<Index>(r);
    m.col[static_cast<std::size_t>(k)] = static_cast<Index>(c);
  }
  return m;
}

#define SCANKIT_GENERATORS(Index, Value)                                              \
  template coo_matrix_host<Index, Value> poisson_2d<Index, Value>(std::int64_t);      \
  template coo_matrix_host<Index, Value> poisson_3d<Index, Value>(std::int64_t);      \
  template coo_matrix_host<Index, Value> rmat<Index, Value>(const rmat_parameters&);
SCANKIT_GENERATORS(std::int32_t, float)
SCANKIT_GENERATORS(std::int32_t, double)
SCANKIT_GENERATORS(std::int64_t, float)
SCANKIT_GENERATORS(std::int64_t, double)
#undef SCANKIT_GENERATORS

}  // namespace scankit::sparse
