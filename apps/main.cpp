// The scankit command line: one binary, one subcommand per sample app.
#include <cstring>
#include <exception>
#include <iostream>
#include <string>

#include "doctor.hpp"
#include "scankit/error.hpp"

int run_scan_demo(int argc, char** argv);  // scan_demo.cu
int run_compact_app(int argc, char** argv);  // compact_app.cpp
int run_sort_app(int argc, char** argv);     // sort_app.cpp
int run_topk_app(int argc, char** argv);     // topk_app.cpp
int run_csr_app(int argc, char** argv);      // csr_app.cpp
int run_cg_app(int argc, char** argv);       // cg_app.cpp
int run_graph_app(int argc, char** argv);    // graph_app.cpp
int run_spmv_app(int argc, char** argv);     // spmv_app.cpp
int run_sample_app(int argc, char** argv);   // sample_app.cpp
int run_lab(int argc, char** argv);        // lab/lab_main.cpp

namespace {
void print_usage(std::ostream& os) {
  os << "usage: scankit <command> [options]\n"
        "\n"
        "commands:\n"
        "  scan    scan a generated array with every strategy, check each result against the host\n"
        "          reference and report time, GB/s and the fraction of device copy bandwidth\n"
        "          (`scankit scan --help` lists its options)\n"
        "  lab     the scan lab: runs the classic prefix-sum experiments (three-launch vs CPU, warp\n"
        "          shuffle vs shared-memory block scans, barriers, coarsening sweep, work and depth, CUB,\n"
        "          scaling to 2^30) with tables, CSV, JSON and plots (`scankit lab --help` lists them)\n"
        "  compact filter the records of a dataset file on the GPU (drop NaN or out-of-range values of a\n"
        "          column) with stream compaction, checked against the host reference\n"
        "          (`scankit compact --help` lists its options)\n"
        "  sort    sort a column of a dataset file (or generated keys) on the GPU with the radix sort,\n"
        "          check it bit for bit against the host reference and report keys/s and the fraction\n"
        "          of a device copy (`scankit sort --help` lists its options)\n"
        "  topk    the k largest (or smallest) keys of each row of a generated or read matrix on the GPU,\n"
        "          checked row by row against the host, with keys/s and the read floor (`scankit topk --help`)\n"
        "  csr     read a Matrix Market file or METIS graph (or generate a Poisson matrix or an R-MAT\n"
        "          graph), build its CSR on the GPU, check it against the host and print its statistics\n"
        "          and timings (`scankit csr --help` lists its options)\n"
        "  graph   a graph pipeline from the primitives: CSR build, breadth-first search and PageRank on a\n"
        "          METIS graph (data/4elt.graph by default), a Matrix Market file or a generated R-MAT graph,\n"
        "          checked against the host, with each step's time (`scankit graph --help`)\n"
        "  spmv    sparse matrix times vector: every SpMV kernel and cuSPARSE on a read or generated\n"
        "          matrix, each checked against the host, with GFLOP/s and ratios (`scankit spmv --help`)\n"
        "  sample  draw from a discrete distribution (a weights file or a generated Zipf) on the GPU and\n"
        "          print the histogram of the draws against the expected counts with the chi-square\n"
        "          statistic; --plot writes a PNG (`scankit sample --help` lists its options)\n"
        "  cg      solve a generated Poisson problem by conjugate gradient on the GPU, printing the\n"
        "          residual of every iteration and the time per iteration (`scankit cg --help`)\n"
        "  doctor  print the library version, the CUDA runtime and driver, every GPU and the kernels\n"
        "          each algorithm runs on it (for bug reports)\n"
        "\n"
        "  scankit --version prints the version and the GPU found.\n"
        "\n"
        "Without a CUDA device the commands say so and run only the host reference.\n";
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    print_usage(argc < 2 ? std::cerr : std::cout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  if (command == "--version") {
    scankit::apps::write_version(std::cout);
    return 0;
  }
  try {
    if (command == "doctor") return scankit::apps::run_doctor(argc - 1, argv + 1, std::cout, std::cerr);
    if (command == "scan") return run_scan_demo(argc - 1, argv + 1);
    if (command == "compact") return run_compact_app(argc - 1, argv + 1);
    if (command == "sort") return run_sort_app(argc - 1, argv + 1);
    if (command == "topk") return run_topk_app(argc - 1, argv + 1);
    if (command == "csr") return run_csr_app(argc - 1, argv + 1);
    if (command == "cg") return run_cg_app(argc - 1, argv + 1);
    if (command == "graph") return run_graph_app(argc - 1, argv + 1);
    if (command == "spmv") return run_spmv_app(argc - 1, argv + 1);
    if (command == "sample") return run_sample_app(argc - 1, argv + 1);
    if (command == "lab") return run_lab(argc - 1, argv + 1);
  } catch (const scankit::error& e) {
    std::cerr << "scankit: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "scankit: " << e.what() << "\n";
    return 1;
  }
  std::cerr << "scankit: unknown command '" << command << "'\n";
  print_usage(std::cerr);
  return 2;
}
