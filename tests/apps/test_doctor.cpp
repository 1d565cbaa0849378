// `scankit --version` and `scankit doctor`: the version from scankit/version.hpp, the CUDA
// runtime, and either the GPUs with their code paths or the reason there is none; the command
// line's --help and its refusal of unknown options.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "doctor.hpp"
#include "scankit/version.hpp"

namespace {

bool has_gpu() {
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
}

int run(std::vector<std::string> args, std::string& out, std::string& err) {
  std::vector<char*> argv;
  args.insert(args.begin(), "doctor");
  for (auto& a : args) argv.push_back(a.data());
  std::ostringstream o, e;
  const int code = scankit::apps::run_doctor(static_cast<int>(argv.size()), argv.data(), o, e);
  out = o.str();
  err = e.str();
  return code;
}

TEST(Version, NamesTheLibraryVersionAndTheGpu) {
  EXPECT_EQ(std::string(scankit::version_string),
            std::to_string(SCANKIT_VERSION_MAJOR) + "." + std::to_string(SCANKIT_VERSION_MINOR) + "." +
                std::to_string(SCANKIT_VERSION_PATCH));
  std::ostringstream os;
  scankit::apps::write_version(os);
  const std::string text = os.str();
  EXPECT_EQ(text.rfind(std::string("scankit ") + scankit::version_string, 0), 0u) << text;
  EXPECT_NE(text.find(scankit::cuda_architectures), std::string::npos) << text;
  EXPECT_NE(text.find(has_gpu() ? "GPU 0: " : "no CUDA device"), std::string::npos) << text;
}

TEST(Doctor, ReportsRuntimeAndEveryGpuOrWhyNone) {
  std::string out, err;
  ASSERT_EQ(run({}, out, err), 0) << err;
  EXPECT_NE(out.find("CUDA runtime "), std::string::npos) << out;
  if (has_gpu()) {
    EXPECT_NE(out.find("GPU 0: "), std::string::npos) << out;
    EXPECT_NE(out.find("scan, compaction: "), std::string::npos) << out;
    EXPECT_NE(out.find("kernels: "), std::string::npos) << out;
  } else {
    EXPECT_NE(out.find("no CUDA device"), std::string::npos) << out;
  }
}

TEST(Doctor, HelpAndUnknownOptions) {
  std::string out, err;
  EXPECT_EQ(run({"--help"}, out, err), 0);
  EXPECT_NE(out.find("bug report"), std::string::npos) << out;
  EXPECT_EQ(run({"--frobnicate"}, out, err), 2);
  EXPECT_NE(err.find("--frobnicate"), std::string::npos) << err;
}

}  // namespace
