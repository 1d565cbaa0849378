// Segments: scans by CSR offsets, reduce-by-key, segmented sort; and selection by a value range
// (select_if / partition_if with keep_in_range). The calls that return a count read it back.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "dtypes.hpp"
#include "ops.hpp"
#include "scankit/compact.hpp"
#include "scankit/detail/compact_arguments.hpp"  // count_to_host
#include "scankit/reduce_by_key.hpp"
#include "scankit/segmented_scan.hpp"
#include "scankit/segmented_sort.hpp"
#include "workspaces.hpp"

namespace nb = nanobind;

namespace scankit::python {
namespace {

// The segmented scans' value types.
template <class F>
decltype(auto) dispatch_segment_value(const std::string& dtype, const char* function, F&& f) {
  if (dtype == "int32") return f(type_tag<std::int32_t>{});
  if (dtype == "int64") return f(type_tag<std::int64_t>{});
  if (dtype == "float32") return f(type_tag<float>{});
  if (dtype == "float64") return f(type_tag<double>{});
  throw error(std::string(function) + ": dtype " + dtype + " is not supported (int32, int64, float32, float64)");
}

void segmented_scan(bool inclusive, const std::string& dtype, const std::string& offset_dtype, std::uintptr_t values,
                    std::uintptr_t offsets, std::int64_t num_segments, std::uintptr_t out, std::int64_t n,
                    nb::handle init, const std::string& op_name, std::uintptr_t stream) {
  const char* function = inclusive ? "scankit.inclusive_segmented_scan" : "scankit.exclusive_segmented_scan";
  const scan_op op = parse_op(op_name, function);
  dispatch_segment_value(dtype, function, [&](auto tag) {
    using T = typename decltype(tag)::type;
    dispatch_index(offset_dtype, function, [&](auto offset_tag) {
      using O = typename decltype(offset_tag)::type;
      if (inclusive) {
        inclusive_segmented_scan_by_offsets(as_pointer<const T>(values), as_pointer<const O>(offsets), num_segments,
                                            as_pointer<T>(out), n, op, as_stream(stream), workspace_for(stream));
      } else {
        exclusive_segmented_scan_by_offsets(as_pointer<const T>(values), as_pointer<const O>(offsets), num_segments,
                                            as_pointer<T>(out), n, nb::cast<T>(init), op, as_stream(stream),
                                            workspace_for(stream));
      }
    });
  });
}

std::int64_t reduce_by_key_to(const std::string& key_dtype, const std::string& value_dtype, std::uintptr_t keys,
                              std::uintptr_t values, std::uintptr_t unique_keys, std::uintptr_t aggregates,
                              std::int64_t n, const std::string& op_name, std::uintptr_t stream) {
  const char* function = "scankit.reduce_by_key";
  const scan_op op = parse_op(op_name, function);
  // The number of runs comes back through the library's own count-to-host path (it waits).
  return ::scankit::detail::count_to_host(as_stream(stream), [&](std::int64_t* runs) {
    dispatch_wide(key_dtype, function, [&](auto key_tag) {
      using K = typename decltype(key_tag)::type;
      if constexpr (std::is_floating_point_v<K>) {
        throw error(std::string(function) + ": keys of dtype " + key_dtype + " are not supported (integers)");
      } else {
        dispatch_segment_value(value_dtype, function, [&](auto value_tag) {
          using T = typename decltype(value_tag)::type;
          reduce_by_key(as_pointer<const K>(keys), as_pointer<const T>(values), as_pointer<K>(unique_keys),
                        as_pointer<T>(aggregates), runs, n, op, as_stream(stream), workspace_for(stream));
        });
      }
    });
  });
}

void segmented_sort_to(const std::string& key_dtype, const std::string& offset_dtype, std::uintptr_t keys_in,
                       std::uintptr_t keys_out, std::int64_t n, std::uintptr_t offsets, std::int64_t num_segments,
                       bool descending, std::uintptr_t stream) {
  const char* function = "scankit.segmented_sort";
  sort_options options;
  options.order = descending ? sort_order::descending : sort_order::ascending;
  dispatch_sort_key(key_dtype, function, [&](auto key_tag) {
    using K = typename decltype(key_tag)::type;
    constexpr bool supported = !std::is_same_v<K, std::uint64_t> && sizeof(K) >= 2 &&
                               !std::is_same_v<K, std::int16_t> && !std::is_same_v<K, std::uint16_t>;
    if constexpr (!supported) {
      throw error(std::string(function) + ": keys of dtype " + key_dtype +
                  " are not supported (float16, bfloat16, float32, float64, int32, uint32, int64)");
    } else {
      dispatch_index(offset_dtype, function, [&](auto offset_tag) {
        using O = typename decltype(offset_tag)::type;
        segmented_sort_keys(as_pointer<const K>(keys_in), as_pointer<K>(keys_out), n, as_pointer<const O>(offsets),
                            num_segments, as_stream(stream), workspace_for(stream), options);
      });
    }
  });
}

// Items in [lo, hi], in order (select), or those first and then the others (partition).
std::int64_t select_range_to(bool partition, const std::string& dtype, std::uintptr_t in, std::uintptr_t out,
                             std::int64_t n, nb::handle lo, nb::handle hi, std::uintptr_t stream) {
  const char* function = partition ? "scankit.partition" : "scankit.select";
  return dispatch_wide(dtype, function, [&](auto tag) -> std::int64_t {
    using T = typename decltype(tag)::type;
    const keep_in_range<T> pred{nb::cast<T>(lo), nb::cast<T>(hi)};
    if (!partition) {
      return select_if_count_host(as_pointer<const T>(in), as_pointer<T>(out), n, pred, as_stream(stream),
                                  workspace_for(stream));
    }
    if constexpr (std::is_same_v<T, std::uint32_t> || std::is_same_v<T, float>) {
      return partition_if_count_host(as_pointer<const T>(in), as_pointer<T>(out), n, pred, as_stream(stream),
                                     workspace_for(stream));
    } else {
      throw error(std::string(function) + ": dtype " + dtype + " is not supported (uint32, float32)");
    }
  });
}

}  // namespace

void bind_segments(nb::module_& m) {
  m.def("segmented_scan", &segmented_scan);
  m.def("reduce_by_key", &reduce_by_key_to);
  m.def("segmented_sort", &segmented_sort_to);
  m.def("select_range", &select_range_to);
}

}  // namespace scankit::python
