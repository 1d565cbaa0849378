// The matrix a sparse sample app works on: a Matrix Market file, a METIS graph, or a generated
// Poisson matrix or R-MAT graph (`--generate kind:size`). Plain C++ (g++).
#pragma once

#include <cstdint>
#include <string>

#include "scankit/sparse/matrix_market.hpp"

namespace scankit::apps {

using app_coo = scankit::sparse::coo_matrix_host<std::int32_t, double>;

// poisson2d:N (N^2 rows), poisson3d:N (N^3 rows), rmat:SCALE (2^SCALE vertices, 16 edges each).
// Throws scankit::error prefixed with `app` ("scankit csr") for a bad spec.
app_coo generate_matrix(const std::string& spec, const std::string& app);

// `file` (.graph: METIS, else Matrix Market) or, when it is empty, generate_matrix(spec).
app_coo load_matrix(const std::string& file, const std::string& spec, const std::string& app);

}  // namespace scankit::apps
