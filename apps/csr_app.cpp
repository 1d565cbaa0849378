// `scankit csr`: reads a Matrix Market file or a METIS graph (or generates a Poisson matrix or an
// R-MAT graph), builds its CSR on the GPU from the triplets (sorted, duplicates summed), checks it
// against the host (Eigen's setFromTriplets where Eigen was found at build time, else a sort on
// the host), and prints the matrix's statistics and the timings. Without a CUDA device the host
// build runs alone, with a notice. Plain C++ (g++) on the precompiled API; options by CLI11.
//
//   scankit csr                                  the 5-point Poisson matrix of a 1024^2 grid
//   scankit csr --generate poisson2d:4096        83.9 M nonzeros
//   scankit csr --generate rmat:22               R-MAT, 2^22 vertices, 16 edges each
//   scankit csr /usr/share/doc/libmetis-doc/examples/mdual.graph
//   scankit csr matrix.mtx --shuffle --repeat 10
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>

#include "command_line.hpp"
#include "scankit/error.hpp"
#include "scankit/scan.hpp"  // cuda_device_available
#include "scankit/sparse/csr_build.hpp"
#include "scankit/sparse/generators.hpp"
#include "scankit/sparse/matrix_market.hpp"
#include "matrix_source.hpp"

#if SCANKIT_APP_WITH_EIGEN
#include <Eigen/SparseCore>
#endif

namespace {

using index_t = std::int32_t;
using value_t = double;
using coo_t = scankit::sparse::coo_matrix_host<index_t, value_t>;
using csr_t = scankit::sparse::csr_matrix_host<index_t, value_t>;

[[noreturn]] void fail(const std::string& message) { throw scankit::error("scankit csr: " + message); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The host's CSR of the triplets: sorted by (row, column), duplicates summed in input order.
csr_t host_csr(const coo_t& coo) {
#if SCANKIT_APP_WITH_EIGEN
  std::vector<Eigen::Triplet<value_t, index_t>> triplets;
  triplets.reserve(coo.nonzeros());
  for (std::size_t k = 0; k < coo.nonzeros(); ++k) triplets.emplace_back(coo.row[k], coo.col[k], coo.value[k]);
  Eigen::SparseMatrix<value_t, Eigen::RowMajor, index_t> m(coo.rows, coo.cols);
  m.setFromTriplets(triplets.begin(), triplets.end());
  m.makeCompressed();
  csr_t csr;
  csr.rows = coo.rows;
  csr.cols = coo.cols;
  csr.offsets.assign(m.outerIndexPtr(), m.outerIndexPtr() + coo.rows + 1);
  csr.columns.assign(m.innerIndexPtr(), m.innerIndexPtr() + m.nonZeros());
  csr.values.assign(m.valuePtr(), m.valuePtr() + m.nonZeros());
  return csr;
#else
  std::vector<std::size_t> order(coo.nonzeros());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return coo.row[a] != coo.row[b] ? coo.row[a] < coo.row[b] : coo.col[a] < coo.col[b];
  });
  csr_t csr;
  csr.rows = coo.rows;
  csr.cols = coo.cols;
  csr.offsets.assign(static_cast<std::size_t>(coo.rows) + 1, 0);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::size_t k = order[i];
    if (i > 0 && coo.row[k] == coo.row[order[i - 1]] && coo.col[k] == coo.col[order[i - 1]]) {
      csr.values.back() += coo.value[k];
      continue;
    }
    csr.columns.push_back(coo.col[k]);
    csr.values.push_back(coo.value[k]);
    ++csr.offsets[static_cast<std::size_t>(coo.row[k]) + 1];
  }
  std::partial_sum(csr.offsets.begin(), csr.offsets.end(), csr.offsets.begin());
  return csr;
#endif
}

void print_statistics(const csr_t& csr, std::size_t triplets) {
  std::vector<long long> buckets(34, 0);  // 0, 1, 2-3, 4-7, ...
  long long longest = 0;
  for (index_t r = 0; r < csr.rows; ++r) {
    const long long length = csr.offsets[r + 1] - csr.offsets[r];
    longest = std::max(longest, length);
    int b = 0;
    while (b + 1 < static_cast<int>(buckets.size()) && (1LL << b) <= length) ++b;
    ++buckets[b];
  }
  std::cout << "matrix: " << csr.rows << " x " << csr.cols << ", " << triplets << " triplets, " << csr.nonzeros()
            << " nonzeros after summing duplicates; mean row " << std::fixed << std::setprecision(2)
            << (csr.rows ? static_cast<double>(csr.nonzeros()) / csr.rows : 0.0) << ", longest " << longest << "\n"
            << "row lengths:\n";
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    if (buckets[b] == 0) continue;
    const long long lo = b == 0 ? 0 : 1LL << (b - 1), hi = b == 0 ? 0 : (1LL << b) - 1;
    std::cout << "  " << std::setw(10) << (lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi))
              << "  " << buckets[b] << " rows\n";
  }
}

}  // namespace

int run_csr_app(int argc, char** argv) {
  std::string input, generate_spec;
  bool shuffle = false;
  int repeat = 5;
  std::uint64_t seed = 1;
  CLI::App app{"Reads a Matrix Market file or a METIS graph (or generates a matrix), builds its CSR on the GPU\n"
               "(triplets sorted by row and column with the radix sort, duplicates summed), checks it against\n"
               "the host (Eigen's setFromTriplets when built with Eigen) and prints its statistics and timings.\n"
               "Without a CUDA device only the host build runs.",
               "scankit csr"};
  app.add_option("file", input, "a .mtx Matrix Market file or a .graph METIS graph");
  app.add_option("--generate", generate_spec,
                 "make the matrix instead: poisson2d:N (N^2 rows), poisson3d:N (N^3 rows), rmat:SCALE (2^SCALE\n"
                 "vertices, 16 edges each); default poisson2d:1024 when no file is given");
  app.add_flag("--shuffle", shuffle, "shuffle the triplets before building (the GPU then sorts them)");
  app.add_option("--repeat", repeat, "timed GPU builds (the median is reported)")->check(CLI::Range(1, 1000));
  app.add_option("--seed", seed, "seed of --shuffle");
  if (!scankit::apps::parse_command_line(app, argc, argv)) return 0;
  if (!input.empty() && !generate_spec.empty()) fail("give a file or --generate, not both");

  auto t0 = std::chrono::steady_clock::now();
  const std::string source = !input.empty() ? input : (generate_spec.empty() ? "poisson2d:1024" : generate_spec);
  coo_t coo = scankit::apps::load_matrix(input, source, "scankit csr");
  const double read_s = seconds_since(t0);
  if (shuffle) {
    std::vector<std::size_t> order(coo.nonzeros());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
    coo_t shuffled;
    shuffled.rows = coo.rows;
    shuffled.cols = coo.cols;
    for (std::size_t k : order) {
      shuffled.row.push_back(coo.row[k]);
      shuffled.col.push_back(coo.col[k]);
      shuffled.value.push_back(coo.value[k]);
    }
    coo = std::move(shuffled);
  }
  std::cout << source << ": read or made in " << std::setprecision(3) << read_s << " s\n";

  t0 = std::chrono::steady_clock::now();
  const csr_t expected = host_csr(coo);
  const double host_s = seconds_since(t0);
  print_statistics(expected, coo.nonzeros());
#if SCANKIT_APP_WITH_EIGEN
  const char* host_name = "Eigen setFromTriplets";
#else
  const char* host_name = "host sort";
#endif
  std::cout << "host (" << host_name << "): " << std::setprecision(2) << host_s * 1e3 << " ms\n";

  if (!scankit::cuda_device_available()) {
    std::cout << "no CUDA device: the GPU build did not run\n";
    return 0;
  }
  const auto nnz = static_cast<std::int64_t>(coo.nonzeros());
  index_t *rows = nullptr, *cols = nullptr;
  value_t* values = nullptr;
  const auto bytes = static_cast<std::size_t>(std::max<std::int64_t>(nnz, 1));
  SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&rows), bytes * sizeof(index_t)));
  SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&cols), bytes * sizeof(index_t)));
  SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&values), bytes * sizeof(value_t)));
  int status = 0;
  try {
    SCANKIT_CUDA_CHECK(cudaMemcpy(rows, coo.row.data(), nnz * sizeof(index_t), cudaMemcpyHostToDevice));
    SCANKIT_CUDA_CHECK(cudaMemcpy(cols, coo.col.data(), nnz * sizeof(index_t), cudaMemcpyHostToDevice));
    SCANKIT_CUDA_CHECK(cudaMemcpy(values, coo.value.data(), nnz * sizeof(value_t), cudaMemcpyHostToDevice));
    scankit::workspace ws;
    std::vector<double> times;
    scankit::sparse::device_csr<index_t, value_t> csr;
    for (int r = 0; r <= repeat; ++r) {  // the first run warms up
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      t0 = std::chrono::steady_clock::now();
      csr = scankit::sparse::coo_to_csr(rows, cols, values, nnz, coo.rows, coo.cols, nullptr, &ws);
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      if (r > 0) times.push_back(seconds_since(t0));
    }
    std::sort(times.begin(), times.end());
    const csr_t got = csr.download();
    const bool same = got.offsets == expected.offsets && got.columns == expected.columns && got.values == expected.values;
    std::cout << "GPU coo_to_csr: " << std::setprecision(3) << times[times.size() / 2] * 1e3 << " ms (median of "
              << repeat << "), " << std::setprecision(1) << nnz / times[times.size() / 2] / 1e6 << " M triplets/s; "
              << (same ? "same CSR as the host" : "DIFFERS from the host") << "\n";
    status = same ? 0 : 1;
  } catch (...) {
    (void)cudaFree(rows);
    (void)cudaFree(cols);
    (void)cudaFree(values);
    throw;
  }
  (void)cudaFree(rows);
  (void)cudaFree(cols);
  (void)cudaFree(values);
  return status;
}
