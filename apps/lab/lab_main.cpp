// `scankit lab`: parse, plan, run (on the GPU, or the host part without one), write the CSV and
// JSON files, draw the plots with scripts/plot_lab.py, and say how it went.
#include "lab_main.hpp"

#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "lab_experiments.hpp"
#include "lab_options.hpp"
#include "lab_report.hpp"
#include "scankit/scan.hpp"

#ifndef SCANKIT_SOURCE_DIR
#define SCANKIT_SOURCE_DIR ""
#endif

namespace scankit::lab {

namespace fs = std::filesystem;

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

std::string find_plot_script() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("SCANKIT_PLOT_SCRIPT"); env != nullptr && *env != '\0') candidates.emplace_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path dir = exe.parent_path();
    for (int up = 0; up < 4 && !dir.empty(); ++up) {
      candidates.push_back(dir / "scripts" / "plot_lab.py");             // a source tree
      candidates.push_back(dir / "share" / "scankit" / "plot_lab.py");  // an install (bin/../share/scankit)
      dir = dir.parent_path();
    }
  }
  candidates.push_back(fs::current_path(ec) / "scripts" / "plot_lab.py");
  if (std::string(SCANKIT_SOURCE_DIR).size() > 0) candidates.push_back(fs::path(SCANKIT_SOURCE_DIR) / "scripts" / "plot_lab.py");
  for (const auto& p : candidates) {
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return {};
}

std::string find_plot_python() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("SCANKIT_PYTHON"); env != nullptr && *env != '\0') candidates.emplace_back(env);
  candidates.emplace_back("python3");
  candidates.emplace_back("/usr/bin/python3");
  for (const auto& python : candidates) {
    const std::string probe = shell_quote(python) + " -c 'import matplotlib' >/dev/null 2>&1";
    if (std::system(probe.c_str()) == 0) return python;
  }
  return {};
}

}  // namespace scankit::lab

namespace {

using namespace scankit::lab;

void print_plan(const lab_plan& plan, std::ostream& os) {
  os << "scankit lab: " << (plan.full ? "full" : "quick") << " mode, " << to_string(plan.type) << " inclusive sums, repeat "
     << plan.repeat << ", seed " << plan.seed << "\n";
  os << "  experiments:";
  for (int id : plan.experiments) os << " " << id;
  os << "\n  sizes (experiments 1-6):";
  for (auto n : plan.sizes) os << " " << format_size(n);
  if (plan.runs(7)) {
    os << "\n  sizes (experiment 7):";
    for (auto n : plan.scaling_sizes) os << " " << format_size(n);
  }
  os << "\n  output: " << plan.out_dir << "\n";
  for (const auto& n : plan.notices) os << "note: " << n << "\n";
}

// Writes the files and, if asked and possible, the plots. False if the files could not be written.
bool write_outputs(const lab_plan& plan, const lab_report& report, std::ostream& os) {
  std::vector<std::string> written;
  try {
    written = write_report_files(report, plan.out_dir);
  } catch (const std::exception& e) {
    std::cerr << "scankit lab: " << e.what() << "\n";
    return false;
  }
  os << "\nwrote lab.json and " << written.size() - 1 << " CSV file(s) (one per table";
  if (!report.measurements.columns.empty()) os << ", measurements.csv: every timing";
  os << ") to " << plan.out_dir << "\n";
  if (!plan.plots) return true;
  const std::string script = find_plot_script();
  const std::string python = script.empty() ? std::string() : find_plot_python();
  if (script.empty()) {
    os << "plots: scripts/plot_lab.py not found (set SCANKIT_PLOT_SCRIPT): no PNG files\n";
  } else if (python.empty()) {
    os << "plots: no python3 with matplotlib here (apt-get install python3-matplotlib, or set SCANKIT_PYTHON): no PNG "
          "files; later, run: python3 scripts/plot_lab.py "
       << plan.out_dir << "\n";
  } else {
    const std::string command = shell_quote(python) + " " + shell_quote(script) + " " + shell_quote(plan.out_dir);
    std::cout << std::flush;
    const int status = std::system(command.c_str());
    if (status != 0) os << "plots: '" << command << "' failed (status " << status << "); the CSV and JSON files are complete\n";
  }
  return true;
}

}  // namespace

int run_lab(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  lab_plan plan;
  try {
    const lab_options options = parse_lab_options(args);
    if (options.help) {
      std::cout << lab_usage();
      return exit_ok;
    }
    plan = make_plan(options);
  } catch (const usage_error& e) {
    std::cerr << "scankit lab: " << e.what() << "\n(scankit lab --help lists the options)\n";
    return exit_usage;
  }
  std::ostream& out = std::cout;
  print_plan(plan, out);

  lab_report report;
  for (const auto& n : plan.notices) report.notices.push_back(n);

  if (!scankit::cuda_device_available()) {
    out << "\nno CUDA device found: the GPU experiments cannot run here. Timing the host reference scan (the CPU part\n"
           "of experiment 1) instead; run the lab on a machine with an NVIDIA GPU (built for sm_90) for the rest.\n";
    const int timed = run_host_experiments(plan, report, out, std::cerr);
    write_outputs(plan, report, out);
    out << "\nnothing on the GPU could be measured (" << timed << " host reference timings): exit status " << exit_no_gpu
        << "\n";
    return exit_no_gpu;
  }

  int measured = 0;
  try {
    measured = run_gpu_experiments(plan, report, out, std::cerr);
  } catch (const std::exception& e) {
    // A failure outside any one variant (device query, allocation of the buffers, the input).
    report.errors.push_back(std::string("the lab stopped: ") + e.what());
    std::cerr << "\nscankit lab: stopped: " << e.what() << "\n";
  }
  const bool files_ok = write_outputs(plan, report, out);

  out << "\nsummary: " << measured << " measurements";
  if (!report.mismatches.empty() || !report.errors.empty()) {
    out << "; " << report.mismatches.size() << " MISMATCH(ES) and " << report.errors.size() << " failure(s):\n";
    for (const auto& m : report.mismatches) out << "  MISMATCH " << m << "\n";
    for (const auto& e : report.errors) out << "  FAILED " << e << "\n";
    return exit_failure;
  }
  if (measured == 0) {
    out << "; nothing on the GPU could be measured\n";
    return exit_no_gpu;
  }
  out << "; every variant matches the host reference\n";
  return files_ok ? exit_ok : exit_failure;
}
