// The sample apps' command-line parsing on CLI11, in one place.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "scankit/error.hpp"

namespace scankit::apps {

// Parses argv into `app`. Returns false once --help has been printed (the app then returns 0),
// true to go on. A bad command line throws scankit::error "<app name>: <what CLI11 said> (see
// --help)".
inline bool parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      app.exit(e);  // --help: CLI11 prints it
      return false;
    }
    throw scankit::error(app.get_name() + ": " + e.what() + " (see --help)");
  }
  return true;
}

}  // namespace scankit::apps
