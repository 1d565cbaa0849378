// `scankit --version` and `scankit doctor`: what a bug report needs (the library version, the
// CUDA driver and runtime, every GPU and the code path each algorithm takes on it).
#include "doctor.hpp"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>

#include "scankit/device_features.hpp"
#include "scankit/version.hpp"

namespace scankit::apps {
namespace {

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// The numbers in CMAKE_CUDA_ARCHITECTURES ("80;89;90-real;100" -> 80 89 90 100).
std::vector<int> built_architectures() {
  std::vector<int> archs;
  std::stringstream list(cuda_architectures);
  std::string item;
  while (std::getline(list, item, ';')) {
    try {
      archs.push_back(std::stoi(item));
    } catch (const std::exception&) {
      // "native", "all" or an empty list: nothing to compare against
    }
  }
  return archs;
}

// How the library's kernels reach a GPU of compute capability `arch` (e.g. 90).
std::string code_for(int arch) {
  const std::vector<int> archs = built_architectures();
  if (archs.empty()) return "built for \"" + std::string(cuda_architectures) + "\"";
  if (std::find(archs.begin(), archs.end(), arch) != archs.end()) return "machine code for sm_" + std::to_string(arch);
  // Machine code runs as it is on GPUs of the same major version and a higher minor one
  // (sm_80's on sm_86 and sm_89).
  int compatible = 0;
  for (int a : archs) {
    if (a / 10 == arch / 10 && a < arch) compatible = std::max(compatible, a);
  }
  if (compatible != 0) {
    return "machine code for sm_" + std::to_string(compatible) + " (which sm_" + std::to_string(arch) + " runs as it is)";
  }
  int below = 0;
  for (int a : archs) {
    if (a < arch) below = std::max(below, a);
  }
  if (below == 0) {
    return "NO CODE for sm_" + std::to_string(arch) + ": rebuild with -DCMAKE_CUDA_ARCHITECTURES=" +
           std::to_string(arch);
  }
  return "PTX of compute_" + std::to_string(below) + ", compiled by the driver at first use";
}

}  // namespace

void write_version(std::ostream& os) {
  os << "scankit " << version_string << " (device code for CUDA architectures " << cuda_architectures << ")\n";
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    os << "no CUDA device (" << (status != cudaSuccess ? cudaGetErrorString(status) : "none found") << ")\n";
    return;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) {
    os << "GPU 0: " << prop.name << ", compute capability " << prop.major << "." << prop.minor;
    if (devices > 1) os << " (and " << devices - 1 << " more)";
    os << "\n";
  }
}

void write_doctor_report(std::ostream& os) {
  os << "scankit " << version_string << "\n";
  os << "  device code: CUDA architectures " << cuda_architectures << "\n";
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  os << "  CUDA runtime " << cuda_version_text(runtime) << ", driver "
     << (driver > 0 ? cuda_version_text(driver) : std::string("none")) << "\n";
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    os << "  no CUDA device (" << (status != cudaSuccess ? cudaGetErrorString(status) : "none found")
       << "): the commands run their host references only\n";
    return;
  }
  for (int d = 0; d < devices; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) {
      os << "GPU " << d << ": properties unavailable\n";
      continue;
    }
    const int arch = prop.major * 10 + prop.minor;
    os << "GPU " << d << ": " << prop.name << ", compute capability " << prop.major << "." << prop.minor << ", "
       << prop.multiProcessorCount << " SMs, " << std::fixed << std::setprecision(1)
       << static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0) << " GiB\n";
    os << "  kernels: " << code_for(arch) << "\n";
    bool staged = false;
    if (cudaSetDevice(d) == cudaSuccess) {
      try {
        staged = staged_kernels_available(d);
      } catch (const std::exception&) {
        staged = false;
      }
    }
    const char* single_pass = staged ? "staged single-pass kernels (tiles moved by the bulk-copy engine)"
                              : portable_kernels_forced()
                                  ? "register single-pass kernels (forced)"
                                  : "register single-pass kernels (no bulk-copy engine before sm_90)";
    os << "  scan, compaction: " << single_pass << "\n";
    os << "  radix sort: onesweep passes with a per-digit look-back; small inputs in one block\n";
  }
}

int run_doctor(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"Prints the library version, the CUDA runtime and driver, every GPU and the kernels each\n"
               "algorithm runs on it: what a bug report needs.",
               "scankit doctor"};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e, out, err);  // --help
    err << "scankit doctor: " << e.what() << " (see --help)\n";
    return 2;
  }
  write_doctor_report(out);
  return 0;
}

}  // namespace scankit::apps
