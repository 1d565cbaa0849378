// `scankit --version` and `scankit doctor` (apps/doctor.cpp).
#pragma once

#include <ostream>

namespace scankit::apps {

// "scankit <version> (device code for ...)" and the first GPU, or why there is none.
void write_version(std::ostream& os);
// The version, CUDA runtime and driver, and per GPU: name, compute capability, how the library's
// kernels reach it, and which kernels scan, compaction and sort run there.
void write_doctor_report(std::ostream& os);
// `scankit doctor [--help]`: 0 on success, 2 on a bad command line.
int run_doctor(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace scankit::apps
