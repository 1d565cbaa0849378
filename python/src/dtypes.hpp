// Dispatch on the dtype names the Python layer passes ("int32", "float32", ...).
#pragma once

#include <cstdint>
#include <string>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "scankit/error.hpp"

namespace scankit::python {

template <class T>
struct type_tag {
  using type = T;
};

// Calls f(type_tag<T>{}) for the 4- and 8-byte integers and floats (the reductions' and unique's
// types); `supported` names the types in the error for any other dtype.
template <class F>
decltype(auto) dispatch_wide(const std::string& dtype, const char* function, F&& f,
                             const char* supported = "int32, uint32, int64, uint64, float32, float64") {
  if (dtype == "int32") return f(type_tag<std::int32_t>{});
  if (dtype == "uint32") return f(type_tag<std::uint32_t>{});
  if (dtype == "int64") return f(type_tag<std::int64_t>{});
  if (dtype == "uint64") return f(type_tag<std::uint64_t>{});
  if (dtype == "float32") return f(type_tag<float>{});
  if (dtype == "float64") return f(type_tag<double>{});
  throw error(std::string(function) + ": dtype " + dtype + " is not supported (" + supported + ")");
}

// The scans' types: the above and the 1- and 2-byte integers.
template <class F>
decltype(auto) dispatch_arithmetic(const std::string& dtype, const char* function, F&& f) {
  if (dtype == "int8") return f(type_tag<std::int8_t>{});
  if (dtype == "uint8") return f(type_tag<std::uint8_t>{});
  if (dtype == "int16") return f(type_tag<std::int16_t>{});
  if (dtype == "uint16") return f(type_tag<std::uint16_t>{});
  return dispatch_wide(dtype, function, f, "int8 to uint64, float32, float64");
}

// The sort's key types: the above and the two 16-bit floats.
template <class F>
decltype(auto) dispatch_sort_key(const std::string& dtype, const char* function, F&& f) {
  if (dtype == "float16") return f(type_tag<__half>{});
  if (dtype == "bfloat16") return f(type_tag<__nv_bfloat16>{});
  return dispatch_arithmetic(dtype, function, f);
}

// The sort's value types.
template <class F>
decltype(auto) dispatch_sort_value(const std::string& dtype, const char* function, F&& f) {
  if (dtype == "int32") return f(type_tag<std::int32_t>{});
  if (dtype == "uint32") return f(type_tag<std::uint32_t>{});
  if (dtype == "float32") return f(type_tag<float>{});
  if (dtype == "int64") return f(type_tag<std::int64_t>{});
  if (dtype == "uint64") return f(type_tag<std::uint64_t>{});
  if (dtype == "float64") return f(type_tag<double>{});
  throw error(std::string(function) + ": values of dtype " + dtype +
              " are not supported (int32, uint32, float32, int64, uint64, float64)");
}

template <class F>
decltype(auto) dispatch_index(const std::string& dtype, const char* function, F&& f) {
  if (dtype == "int32") return f(type_tag<std::int32_t>{});
  if (dtype == "int64") return f(type_tag<std::int64_t>{});
  throw error(std::string(function) + ": indices of dtype " + dtype + " are not supported (int32, int64)");
}

}  // namespace scankit::python
