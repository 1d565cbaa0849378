// Scans and reductions.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>

#include "dtypes.hpp"
#include "ops.hpp"
#include "scankit/reduce.hpp"
#include "scankit/scan.hpp"
#include "workspaces.hpp"

namespace nb = nanobind;

namespace scankit::python {

scan_op parse_op(const std::string& op, const char* function) {
  if (op == "sum") return scan_op::plus;
  if (op == "max") return scan_op::maximum;
  if (op == "min") return scan_op::minimum;
  if (op == "and") return scan_op::bit_and;
  if (op == "or") return scan_op::bit_or;
  if (op == "xor") return scan_op::bit_xor;
  throw error(std::string(function) + ": op '" + op + "' is not one of sum, max, min, and, or, xor");
}

namespace {

void scan(bool inclusive, const std::string& dtype, std::uintptr_t in, std::uintptr_t out, std::int64_t n,
          nb::handle init, const std::string& op_name, std::uintptr_t stream) {
  const char* function = inclusive ? "scankit.inclusive_scan" : "scankit.exclusive_scan";
  const scan_op op = parse_op(op_name, function);
  dispatch_arithmetic(dtype, function, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (inclusive) {
      inclusive_scan(as_pointer<const T>(in), as_pointer<T>(out), n, op, as_stream(stream), workspace_for(stream));
    } else {
      exclusive_scan(as_pointer<const T>(in), as_pointer<T>(out), n, nb::cast<T>(init), op, as_stream(stream),
                     workspace_for(stream));
    }
  });
}

void reduce_to(const std::string& dtype, std::uintptr_t in, std::uintptr_t out, std::int64_t n, nb::handle init,
               const std::string& op_name, std::uintptr_t stream) {
  const char* function = "scankit.reduce";
  const scan_op op = parse_op(op_name, function);
  dispatch_wide(dtype, function, [&](auto tag) {
    using T = typename decltype(tag)::type;
    reduce(as_pointer<const T>(in), as_pointer<T>(out), n, nb::cast<T>(init), op, as_stream(stream),
           workspace_for(stream));
  });
}

}  // namespace

void bind_scan(nb::module_& m) {
  m.def("scan", &scan, nb::arg("inclusive"), nb::arg("dtype"), nb::arg("input"), nb::arg("output"), nb::arg("n"),
        nb::arg("init"), nb::arg("op"), nb::arg("stream"));
  m.def("reduce", &reduce_to, nb::arg("dtype"), nb::arg("input"), nb::arg("output"), nb::arg("n"), nb::arg("init"),
        nb::arg("op"), nb::arg("stream"));
}

}  // namespace scankit::python
