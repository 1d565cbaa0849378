// The sparse sample apps' matrix: read or generated (matrix_source.hpp).
#include "matrix_source.hpp"

#include <stdexcept>
#include <string>

#include "scankit/error.hpp"
#include "scankit/sparse/generators.hpp"

namespace scankit::apps {
namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

app_coo generate_matrix(const std::string& spec, const std::string& app) {
  const auto fail = [&app](const std::string& message) { throw scankit::error(app + ": " + message); };
  const auto colon = spec.find(':');
  if (colon == std::string::npos) fail("--generate wants kind:size (poisson2d:N, poisson3d:N, rmat:SCALE), got '" + spec + "'");
  const std::string kind = spec.substr(0, colon);
  long long size = 0;
  try {
    std::size_t used = 0;
    size = std::stoll(spec.substr(colon + 1), &used);
    if (used != spec.size() - colon - 1) throw std::invalid_argument(spec);
  } catch (const std::exception&) {
    fail("--generate: '" + spec.substr(colon + 1) + "' is not a size");
  }
  if (kind == "poisson2d") {
    if (size < 1 || size > 40000) fail("--generate poisson2d:N wants 1 <= N <= 40000");
    return scankit::sparse::poisson_2d<std::int32_t, double>(size);
  }
  if (kind == "poisson3d") {
    if (size < 1 || size > 1200) fail("--generate poisson3d:N wants 1 <= N <= 1200");
    return scankit::sparse::poisson_3d<std::int32_t, double>(size);
  }
  if (kind == "rmat") {
    if (size < 1 || size > 26) fail("--generate rmat:SCALE wants 1 <= SCALE <= 26");
    scankit::sparse::rmat_parameters p;
    p.scale = static_cast<int>(size);
    return scankit::sparse::rmat<std::int32_t, double>(p);
  }
  fail("--generate: unknown kind '" + kind + "' (poisson2d, poisson3d, rmat)");
  return {};
}

app_coo load_matrix(const std::string& file, const std::string& spec, const std::string& app) {
  if (file.empty()) return generate_matrix(spec, app);
  return ends_with(file, ".graph") ? scankit::sparse::read_metis_graph<std::int32_t, double>(file)
                                   : scankit::sparse::read_matrix_market<std::int32_t, double>(file);
}

}  // namespace scankit::apps
