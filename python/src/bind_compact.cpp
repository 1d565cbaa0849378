// Compaction: select by a mask, unique. The Python functions return arrays cut to the count, so
// these calls read the count back (the *_count_host forms, which wait for the stream). They keep
// the GIL: the per-stream workspaces are shared state.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>

#include "dtypes.hpp"
#include "scankit/compact.hpp"
#include "workspaces.hpp"

namespace nb = nanobind;

namespace scankit::python {
namespace {

std::int64_t select_flagged_to(const std::string& dtype, const std::string& flag_dtype, std::uintptr_t in,
                               std::uintptr_t flags, std::uintptr_t out, std::int64_t n, std::uintptr_t stream) {
  const char* function = "scankit.select";
  if (flag_dtype != "bool" && flag_dtype != "uint8") {
    throw error(std::string(function) + ": the mask's dtype is " + flag_dtype + ", not bool or uint8");
  }
  return dispatch_arithmetic(dtype, function, [&](auto tag) -> std::int64_t {
    using T = typename decltype(tag)::type;
    if (flag_dtype == "bool") {
      return select_flagged_count_host(as_pointer<const T>(in), as_pointer<const bool>(flags), as_pointer<T>(out), n,
                                       as_stream(stream), workspace_for(stream));
    }
    return select_flagged_count_host(as_pointer<const T>(in), as_pointer<const std::uint8_t>(flags),
                                     as_pointer<T>(out), n, as_stream(stream), workspace_for(stream));
  });
}

std::int64_t unique_to(const std::string& dtype, std::uintptr_t in, std::uintptr_t out, std::int64_t n,
                       std::uintptr_t stream) {
  const char* function = "scankit.unique";
  return dispatch_wide(dtype, function, [&](auto tag) -> std::int64_t {
    using T = typename decltype(tag)::type;
    return unique_count_host(as_pointer<const T>(in), as_pointer<T>(out), n, as_stream(stream), workspace_for(stream));
  });
}

}  // namespace

void bind_compact(nb::module_& m) {
  m.def("select_flagged", &select_flagged_to);
  m.def("unique", &unique_to);
}

}  // namespace scankit::python
