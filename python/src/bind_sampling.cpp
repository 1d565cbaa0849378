// Sampling: the inverse-CDF and alias tables (objects that own device memory), and the draws that
// need no table (rows of weights, a language model's sampler, draws without replacement).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>

#include "scankit/error.hpp"
#include "scankit/sampling.hpp"
#include "workspaces.hpp"

namespace nb = nanobind;

namespace scankit::python {
namespace {

// Calls f with the weights as const float* or const double*.
template <class F>
void with_weights(const std::string& dtype, std::uintptr_t weights, const char* function, F&& f) {
  if (dtype == "float32") return f(as_pointer<const float>(weights));
  if (dtype == "float64") return f(as_pointer<const double>(weights));
  throw error(std::string(function) + ": weights of dtype " + dtype + " are not supported (float32, float64)");
}

// A table; its memory goes back on the stream of its last build when the Python object dies.
template <class Table>
struct table_holder {
  Table table;
  void check(std::uintptr_t stream) const { table.check_host(as_stream(stream)); }
  void draw(std::uintptr_t out, std::int64_t count, std::uint64_t seed, std::uint64_t offset,
            std::uintptr_t stream) const {
    sample(table, as_pointer<std::int32_t>(out), count, seed, offset, as_stream(stream));
  }
};

}  // namespace

void bind_sampling(nb::module_& m) {
  using inverse_cdf = table_holder<sampling_table>;
  nb::class_<inverse_cdf>(m, "SamplingTable")
      .def(nb::init<>())
      .def("build",
           [](inverse_cdf& t, const std::string& dtype, std::uintptr_t weights, std::int64_t n,
              std::uintptr_t stream) {
             with_weights(dtype, weights, "scankit.SamplingTable", [&](auto w) {
               build_sampling_table(w, n, t.table, as_stream(stream));
             });
           })
      .def("check", &inverse_cdf::check)
      .def("sample", &inverse_cdf::draw)
      .def_prop_ro("bins", [](const inverse_cdf& t) { return t.table.bins(); });

  using alias = table_holder<alias_table>;
  nb::class_<alias>(m, "AliasTable")
      .def(nb::init<>())
      .def("build",
           [](alias& t, const std::string& dtype, std::uintptr_t weights, std::int64_t n, std::uintptr_t stream) {
             with_weights(dtype, weights, "scankit.AliasTable", [&](auto w) {
               build_alias_table(w, n, t.table, as_stream(stream), workspace_for(stream));
             });
           })
      .def("check", &alias::check)
      .def("sample", &alias::draw)
      .def_prop_ro("bins", [](const alias& t) { return t.table.bins(); });

  m.def("sample_rows", [](const std::string& dtype, std::uintptr_t weights, std::int64_t rows, std::int64_t cols,
                          std::uintptr_t out, std::uint64_t seed, std::uint64_t offset, std::uintptr_t stream) {
    with_weights(dtype, weights, "scankit.sample_rows", [&](auto w) {
      sample_rows(w, rows, cols, as_pointer<std::int32_t>(out), seed, offset, as_stream(stream),
                  workspace_for(stream));
    });
  });
  m.def("sample_without_replacement",
        [](const std::string& dtype, std::uintptr_t weights, std::int64_t n, std::int64_t k, std::uintptr_t out,
           std::uint64_t seed, std::uint64_t offset, std::uintptr_t stream) {
          with_weights(dtype, weights, "scankit.sample_without_replacement", [&](auto w) {
            sample_without_replacement(w, n, k, as_pointer<std::int32_t>(out), seed, offset, as_stream(stream),
                                       workspace_for(stream));
          });
        });
  m.def("sample_rows_top", [](std::uintptr_t values, std::int64_t rows, std::int64_t cols, std::uintptr_t out,
                              bool logits, float temperature, std::int64_t top_k, double top_p, std::uint64_t seed,
                              std::uint64_t offset, std::uintptr_t stream) {
    top_sampling_options options;
    options.logits = logits;
    options.temperature = temperature;
    options.top_k = top_k;
    options.top_p = top_p;
    sample_rows_top(as_pointer<const float>(values), rows, cols, as_pointer<std::int32_t>(out), options, seed, offset,
                    as_stream(stream), workspace_for(stream));
  });
}

}  // namespace scankit::python
