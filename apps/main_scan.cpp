// `scankit-scan`: the scan demo (`scankit scan`) on its own, linked against the scan engine and the
// lab only, so that scripts/demo.sh runs it after compiling that part of the library.
#include <exception>
#include <iostream>

#include "scankit/error.hpp"

int run_scan_demo(int argc, char** argv);  // scan_demo.cu

int main(int argc, char** argv) {
  try {
    return run_scan_demo(argc, argv);
  } catch (const scankit::error& e) {
    std::cerr << "scankit-scan: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "scankit-scan: " << e.what() << "\n";
    return 1;
  }
}
