// Sampling: the inverse-CDF and alias tables (objects that own device memory), and the draws that
// need no table (rows of weights, a language model's sampler, draws without replacement).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>

#include "scankit/error.hpp"
#include "scankit/sampling.hpp"
#include "scankit/token_sampler.hpp"
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
  explicit table_holder(int allocator_slot) : table(resource_for_slot(allocator_slot)) {}
  Table table;
  void check(std::uintptr_t stream) const { table.check_host(as_stream(stream)); }
  void draw(std::uintptr_t out, std::int64_t count, std::uint64_t seed, std::uint64_t offset,
            std::uintptr_t stream) const {
    sample(table, as_pointer<std::int32_t>(out), count, seed, offset, as_stream(stream));
  }
};

// The serving sampler's parameters, each a scalar or (a non-zero address) a device array.
struct token_call {
  std::string dtype = "float32";
  std::uintptr_t values = 0;
  std::int64_t input_rows = 0, vocab = 0, output_rows = 0;
  bool probabilities = false;
  float temperature = 1.0f;
  std::uintptr_t temperatures = 0;
  std::int32_t top_k = 0;
  std::uintptr_t top_ks = 0;
  float top_p = 1.0f;
  std::uintptr_t top_ps = 0;
  float min_p = 0.0f;
  std::uintptr_t min_ps = 0;
  std::uintptr_t row_indices = 0;
  std::uint64_t seed = 0;
  std::uintptr_t seeds = 0;
  bool seeds_per_row = true;
  std::uint64_t offset = 0;
  std::uintptr_t offsets = 0;
  bool offsets_per_row = true;
  std::uintptr_t tokens = 0, logprobs = 0, kept_probs = 0;
};

void sample_tokens_to(const token_call& c, std::uintptr_t stream) {
  token_sampling_params p;
  p.values = c.probabilities ? token_values::probabilities : token_values::logits;
  p.temperature = c.temperature;
  p.temperatures = as_pointer<const float>(c.temperatures);
  p.top_k = c.top_k;
  p.top_ks = as_pointer<const std::int32_t>(c.top_ks);
  p.top_p = c.top_p;
  p.top_ps = as_pointer<const float>(c.top_ps);
  p.min_p = c.min_p;
  p.min_ps = as_pointer<const float>(c.min_ps);
  p.row_indices = as_pointer<const std::int32_t>(c.row_indices);
  p.seed = c.seed;
  p.seeds = as_pointer<const std::uint64_t>(c.seeds);
  p.seeds_per_row = c.seeds_per_row;
  p.offset = c.offset;
  p.offsets = as_pointer<const std::uint64_t>(c.offsets);
  p.offsets_per_row = c.offsets_per_row;
  token_sampling_outputs o;
  o.tokens = as_pointer<std::int32_t>(c.tokens);
  o.logprobs = as_pointer<float>(c.logprobs);
  o.kept_probs = as_pointer<float>(c.kept_probs);
  if (c.dtype == "float32") {
    sample_tokens(as_pointer<const float>(c.values), c.input_rows, c.vocab, c.output_rows, p, o, as_stream(stream));
  } else if (c.dtype == "float16") {
    sample_tokens(as_pointer<const __half>(c.values), c.input_rows, c.vocab, c.output_rows, p, o, as_stream(stream));
  } else if (c.dtype == "bfloat16") {
    sample_tokens(as_pointer<const __nv_bfloat16>(c.values), c.input_rows, c.vocab, c.output_rows, p, o,
                  as_stream(stream));
  } else {
    throw error("scankit.sample_tokens: values of dtype " + c.dtype + " are not supported (float32, float16, bfloat16)");
  }
}

}  // namespace

void bind_sampling(nb::module_& m) {
  nb::class_<token_call>(m, "TokenCall")
      .def(nb::init<>())
      .def_rw("dtype", &token_call::dtype)
      .def_rw("values", &token_call::values)
      .def_rw("input_rows", &token_call::input_rows)
      .def_rw("vocab", &token_call::vocab)
      .def_rw("output_rows", &token_call::output_rows)
      .def_rw("probabilities", &token_call::probabilities)
      .def_rw("temperature", &token_call::temperature)
      .def_rw("temperatures", &token_call::temperatures)
      .def_rw("top_k", &token_call::top_k)
      .def_rw("top_ks", &token_call::top_ks)
      .def_rw("top_p", &token_call::top_p)
      .def_rw("top_ps", &token_call::top_ps)
      .def_rw("min_p", &token_call::min_p)
      .def_rw("min_ps", &token_call::min_ps)
      .def_rw("row_indices", &token_call::row_indices)
      .def_rw("seed", &token_call::seed)
      .def_rw("seeds", &token_call::seeds)
      .def_rw("seeds_per_row", &token_call::seeds_per_row)
      .def_rw("offset", &token_call::offset)
      .def_rw("offsets", &token_call::offsets)
      .def_rw("offsets_per_row", &token_call::offsets_per_row)
      .def_rw("tokens", &token_call::tokens)
      .def_rw("logprobs", &token_call::logprobs)
      .def_rw("kept_probs", &token_call::kept_probs);
  m.def("sample_tokens", &sample_tokens_to);
  m.def("advance_sampling_offsets", [](std::uintptr_t offsets, std::int64_t count, std::uint64_t step,
                                       std::uintptr_t stream) {
    advance_sampling_offsets(as_pointer<std::uint64_t>(offsets), count, step, as_stream(stream));
  });

  using inverse_cdf = table_holder<sampling_table>;
  nb::class_<inverse_cdf>(m, "SamplingTable")
      .def(nb::init<int>())
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
      .def(nb::init<int>())
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
