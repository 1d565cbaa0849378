// scankit._scankit: the compiled half of the Python package. Its functions take device addresses,
// sizes, dtype names and a stream as integers; the Python half (scankit/__init__.py) checks the
// caller's arrays, allocates the outputs as the caller's array type and passes them down.
#include <nanobind/nanobind.h>

#include "scankit/error.hpp"
#include "scankit/scan.hpp"
#include "scankit/version.hpp"

namespace nb = nanobind;

namespace scankit::python {
void bind_scan(nb::module_& m);
void bind_sort(nb::module_& m);
void bind_compact(nb::module_& m);
void bind_segments(nb::module_& m);
void bind_sampling(nb::module_& m);
void bind_sparse(nb::module_& m);
void bind_workspaces(nb::module_& m);
}  // namespace scankit::python

NB_MODULE(_scankit, m) {
  m.doc() = "scankit's compiled functions (use the scankit package, not this module)";
  // scankit::error (a bad argument, raised before anything is enqueued) and scankit::cuda_error.
  // scankit/_errors.py derives the public classes from these.
  static nb::exception<scankit::error> argument_error(m, "ArgumentError", PyExc_ValueError);
  static nb::exception<scankit::cuda_error> cuda_error(m, "CudaError", PyExc_RuntimeError);
  m.def("cuda_device_available", &scankit::cuda_device_available, "Whether a CUDA device is present.");
  m.attr("__version__") = SCANKIT_VERSION_STRING;
  scankit::python::bind_scan(m);
  scankit::python::bind_sort(m);
  scankit::python::bind_compact(m);
  scankit::python::bind_segments(m);
  scankit::python::bind_sampling(m);
  scankit::python::bind_sparse(m);
  scankit::python::bind_workspaces(m);
}
