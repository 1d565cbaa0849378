// Matrix Market reading speed on the host: scankit's parallel reader (1 and 2 threads, and every
// hardware thread) against Eigen's loadMarket on the same file, in MB of file per second.
// Eigen's call also builds its compressed sparse matrix (setFromTriplets); scankit's returns the
// triplets, which is what its CSR construction starts from.
//
//   bench_matrix_market [--mb N] [--symmetric] [Google Benchmark flags]
//       a generated file of about N MB (default 1024) in $TMPDIR: real general, or real symmetric
//       (the lower triangle stored, every off-diagonal entry mirrored by the reader)
//   bench_matrix_market --file PATH [Google Benchmark flags]   an existing file
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <Eigen/SparseCore>
#include <unsupported/Eigen/SparseExtra>

#include "scankit/sparse/matrix_market.hpp"

namespace {

std::string g_path;
double g_mb = 0;

// A random coordinate real general matrix written by scankit's writer, about `mb` MB; symmetric:
// the same entries with row >= col, under a symmetric header.
void write_file(double mb, bool symmetric) {
  constexpr std::int64_t rows = 1 << 22;
  const auto entries = static_cast<std::int64_t>(mb * 1e6 / 26.0);  // about 26 bytes per line
  std::mt19937_64 rng(7);
  scankit::sparse::coo_matrix_host<std::int64_t, double> m;
  m.rows = m.cols = rows;
  m.row.resize(static_cast<std::size_t>(entries));
  m.col.resize(static_cast<std::size_t>(entries));
  m.value.resize(static_cast<std::size_t>(entries));
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (std::int64_t k = 0; k < entries; ++k) {
    const auto r = static_cast<std::int64_t>(rng() % rows), c = static_cast<std::int64_t>(rng() % rows);
    m.row[static_cast<std::size_t>(k)] = symmetric ? std::max(r, c) : r;
    m.col[static_cast<std::size_t>(k)] = symmetric ? std::min(r, c) : c;
    m.value[static_cast<std::size_t>(k)] = static_cast<double>(static_cast<float>(value(rng)));
  }
  scankit::sparse::write_matrix_market(g_path, m);
  if (symmetric) {  // the writer writes general files: the same lines under a symmetric banner
    const std::string general = g_path + ".general";
    std::filesystem::rename(g_path, general);
    std::ifstream in(general, std::ios::binary);
    std::string banner;
    std::getline(in, banner);
    std::ofstream out(g_path, std::ios::binary);
    out << banner.substr(0, banner.rfind("general")) << "symmetric\n" << in.rdbuf();
    if (!out) throw std::runtime_error("cannot write " + g_path);
    std::filesystem::remove(general);
  }
  g_mb = static_cast<double>(std::filesystem::file_size(g_path)) / 1e6;
}

void scankit_read(benchmark::State& state) {
  scankit::sparse::matrix_market_read_options options;
  options.threads = static_cast<unsigned>(state.range(0));
  std::size_t nonzeros = 0;
  for (auto _ : state) {
    const auto m = scankit::sparse::read_matrix_market<std::int32_t, double>(g_path, options);
    nonzeros = m.nonzeros();
    benchmark::DoNotOptimize(m.value.data());
  }
  state.counters["MB_per_s"] = benchmark::Counter(g_mb, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["nonzeros"] = static_cast<double>(nonzeros);
}

void eigen_load_market(benchmark::State& state) {
  std::size_t nonzeros = 0;
  for (auto _ : state) {
    Eigen::SparseMatrix<double> a;
    if (!Eigen::loadMarket(a, g_path)) state.SkipWithError("Eigen::loadMarket failed");
    nonzeros = static_cast<std::size_t>(a.nonZeros());
    benchmark::DoNotOptimize(a.valuePtr());
  }
  state.counters["MB_per_s"] = benchmark::Counter(g_mb, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["nonzeros"] = static_cast<double>(nonzeros);
}

}  // namespace

int main(int argc, char** argv) {
  double mb = 1024;
  bool symmetric = false;
  std::string file;
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--mb" && i + 1 < argc) {
      mb = std::atof(argv[++i]);
    } else if (arg == "--file" && i + 1 < argc) {
      file = argv[++i];
    } else if (arg == "--symmetric") {
      symmetric = true;
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (file.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    g_path = std::string(tmp != nullptr ? tmp : "/tmp") + "/scankit_bench_matrix_market.mtx";
    write_file(mb, symmetric);
  } else {
    g_path = file;
    g_mb = static_cast<double>(std::filesystem::file_size(g_path)) / 1e6;
  }
  benchmark::AddCustomContext("file", file.empty() ? (symmetric ? "generated, symmetric" : "generated, general") : file);
  benchmark::AddCustomContext("file_mb", std::to_string(g_mb));
  benchmark::AddCustomContext("hardware_threads", std::to_string(std::thread::hardware_concurrency()));
  const auto hw = static_cast<long>(std::max(1u, std::thread::hardware_concurrency()));
  auto* ours = benchmark::RegisterBenchmark("scankit_read", scankit_read)->Arg(1)->Arg(2);
  if (hw > 2) ours->Arg(hw);
  ours->Iterations(3)->UseRealTime()->Unit(benchmark::kMillisecond);  // rates from wall time: threads
  benchmark::RegisterBenchmark("eigen_loadMarket", eigen_load_market)
      ->Iterations(1)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
  int count = static_cast<int>(rest.size());
  benchmark::Initialize(&count, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (file.empty()) std::remove(g_path.c_str());
  return 0;
}
