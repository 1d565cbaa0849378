// The scankit command line: one binary, one subcommand per sample app.
#include <cstring>
#include <exception>
#include <iostream>
#include <string>

#include "scankit/error.hpp"

int run_scan_demo(int argc, char** argv);  // scan_demo.cu

namespace {
void print_usage(std::ostream& os) {
  os << "usage: scankit <command> [options]\n"
        "\n"
        "commands:\n"
        "  scan    scan a generated array with every strategy, check each result against the host\n"
        "          reference and report time, GB/s and the fraction of device copy bandwidth\n"
        "          (`scankit scan --help` lists its options)\n"
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
  try {
    if (command == "scan") return run_scan_demo(argc - 1, argv + 1);
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
