// The names of the Python API's operators ("sum", "max", ...), as scan_op.
#pragma once

#include <string>

#include "scankit/scan_options.hpp"

namespace scankit::python {

// Throws scankit::error naming `function` for an unknown name.
scan_op parse_op(const std::string& op, const char* function);

}  // namespace scankit::python
