// Running a `scankit <command>` entry point from a host test: the arguments as the command line
// passes them (argv[0] = the command), standard output captured.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace scankit::apps::testing {

// entry(argc, argv) with argv = {command, args...}; returns its status, `out` gets what it printed.
template <class Entry>
int run_command(Entry entry, const std::string& command, std::vector<std::string> args, std::string* out = nullptr) {
  args.insert(args.begin(), command);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::testing::internal::CaptureStdout();
  int status = -1;
  try {
    status = entry(static_cast<int>(args.size()), argv.data());
  } catch (...) {
    (void)::testing::internal::GetCapturedStdout();
    throw;
  }
  const std::string text = ::testing::internal::GetCapturedStdout();
  if (out != nullptr) *out = text;
  return status;
}

}  // namespace scankit::apps::testing
