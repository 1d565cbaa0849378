// Radix sort (keys, pairs, argsort) and top-k.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "dtypes.hpp"
#include "scankit/sort.hpp"
#include "scankit/top_k.hpp"
#include "workspaces.hpp"

namespace nb = nanobind;

namespace scankit::python {
namespace {

sort_options order(bool descending) {
  sort_options options;
  options.order = descending ? sort_order::descending : sort_order::ascending;
  return options;
}

void sort_keys_to(const std::string& dtype, std::uintptr_t in, std::uintptr_t out, std::int64_t n, bool descending,
                  std::uintptr_t stream) {
  dispatch_sort_key(dtype, "scankit.sort", [&](auto tag) {
    using K = typename decltype(tag)::type;
    sort_keys(as_pointer<const K>(in), as_pointer<K>(out), n, as_stream(stream), workspace_for(stream),
              order(descending));
  });
}

void sort_pairs_to(const std::string& key_dtype, const std::string& value_dtype, std::uintptr_t keys_in,
                   std::uintptr_t keys_out, std::uintptr_t values_in, std::uintptr_t values_out, std::int64_t n,
                   bool descending, std::uintptr_t stream) {
  const char* function = "scankit.sort_pairs";
  dispatch_sort_key(key_dtype, function, [&](auto key_tag) {
    using K = typename decltype(key_tag)::type;
    dispatch_sort_value(value_dtype, function, [&](auto value_tag) {
      using V = typename decltype(value_tag)::type;
      sort_pairs(as_pointer<const K>(keys_in), as_pointer<K>(keys_out), as_pointer<const V>(values_in),
                 as_pointer<V>(values_out), n, as_stream(stream), workspace_for(stream), order(descending));
    });
  });
}

void argsort_to(const std::string& key_dtype, const std::string& index_dtype, std::uintptr_t keys_in,
                std::uintptr_t keys_out, std::uintptr_t indices, std::int64_t n, bool descending,
                std::uintptr_t stream) {
  const char* function = "scankit.argsort";
  dispatch_sort_key(key_dtype, function, [&](auto key_tag) {
    using K = typename decltype(key_tag)::type;
    dispatch_index(index_dtype, function, [&](auto index_tag) {
      using I = typename decltype(index_tag)::type;
      argsort(as_pointer<const K>(keys_in), as_pointer<K>(keys_out), as_pointer<I>(indices), n, as_stream(stream),
              workspace_for(stream), order(descending));
    });
  });
}

void top_k_to(const std::string& key_dtype, const std::string& index_dtype, std::uintptr_t keys, std::int64_t rows,
              std::int64_t cols, std::int64_t k, std::uintptr_t values_out, std::uintptr_t indices_out, bool largest,
              std::uintptr_t stream) {
  const char* function = "scankit.top_k";
  top_k_options options;
  options.largest = largest;
  dispatch_sort_key(key_dtype, function, [&](auto key_tag) {
    using K = typename decltype(key_tag)::type;
    constexpr bool supported = sizeof(K) >= 4 || std::is_same_v<K, __half> || std::is_same_v<K, __nv_bfloat16>;
    if constexpr (!supported) {
      throw error(std::string(function) + ": 8- and 16-bit integer keys are not supported");
    } else {
      dispatch_index(index_dtype, function, [&](auto index_tag) {
        using I = typename decltype(index_tag)::type;
        top_k(as_pointer<const K>(keys), rows, cols, k, as_pointer<K>(values_out), as_pointer<I>(indices_out),
              as_stream(stream), workspace_for(stream), options);
      });
    }
  });
}

}  // namespace

void bind_sort(nb::module_& m) {
  m.def("sort_keys", &sort_keys_to);
  m.def("sort_pairs", &sort_pairs_to);
  m.def("argsort", &argsort_to);
  m.def("top_k", &top_k_to);
}

}  // namespace scankit::python
