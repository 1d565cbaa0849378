// `scankit lab`: the entry point the command line (apps/main.cpp) and the GPU test call.
#pragma once

#include <string>
#include <vector>

namespace scankit::lab {

// Exit statuses of `scankit lab`.
inline constexpr int exit_ok = 0;           // everything measured matched the host reference
inline constexpr int exit_failure = 1;      // a mismatch, a failed variant, or files not written
inline constexpr int exit_usage = 2;        // bad command line
inline constexpr int exit_no_gpu = 3;       // nothing on the GPU could be measured

// Where plot_lab.py may be: $SCANKIT_PLOT_SCRIPT, then scripts/plot_lab.py beside or above the
// executable's folder (up to three levels), then under the working directory, then in the
// source tree the binary was built from. The first that exists wins ("" if none).
std::string find_plot_script();
// A python3 that can import matplotlib: $SCANKIT_PYTHON, python3, /usr/bin/python3 ("" if none).
std::string find_plot_python();
// 'text' for a POSIX shell.
std::string shell_quote(const std::string& text);

}  // namespace scankit::lab

// argv[0] is "lab"; the options follow.
int run_lab(int argc, char** argv);
