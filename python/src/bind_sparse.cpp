// Sparse matrices: CSR from COO triplets, and SpMV with a reusable plan.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include <cuda_runtime_api.h>

#include "dtypes.hpp"
#include "scankit/error.hpp"
#include "scankit/sparse/csr_build.hpp"
#include "scankit/sparse/matrix_market.hpp"
#include "scankit/sparse/spmv.hpp"
#include "workspaces.hpp"

namespace nb = nanobind;

namespace scankit::python {
namespace {

using sparse::csr_view;
using sparse::device_csr;
using sparse::spmv_plan;

// Calls f(type_tag<Index>, type_tag<Value>) for the four (index, value) pairs the sparse module has.
template <class F>
decltype(auto) dispatch_csr(const std::string& index_dtype, const std::string& value_dtype, const char* function,
                            F&& f) {
  if (value_dtype != "float32" && value_dtype != "float64") {
    throw error(std::string(function) + ": values of dtype " + value_dtype + " are not supported (float32, float64)");
  }
  return dispatch_index(index_dtype, function, [&](auto index_tag) {
    if (value_dtype == "float32") return f(index_tag, type_tag<float>{});
    return f(index_tag, type_tag<double>{});
  });
}

template <class Plan>
struct plan_value;
template <class Index, class Value>
struct plan_value<spmv_plan<Index, Value>> {
  using type = Value;
};

template <class Index, class Value>
csr_view<Index, Value> view_of(std::int64_t rows, std::int64_t cols, std::int64_t nonzeros, std::uintptr_t offsets,
                               std::uintptr_t columns, std::uintptr_t values) {
  return csr_view<Index, Value>(static_cast<Index>(rows), static_cast<Index>(cols), nonzeros,
                                as_pointer<const Index>(offsets), as_pointer<const Index>(columns),
                                as_pointer<const Value>(values));  // values 0: a pattern matrix
}

// A plan of any of the four (index, value) pairs. It reads the caller's arrays on every product:
// the Python object keeps them alive.
class plan_holder {
 public:
  plan_holder(const std::string& index_dtype, const std::string& value_dtype, std::int64_t rows, std::int64_t cols,
              std::int64_t nonzeros, std::uintptr_t offsets, std::uintptr_t columns, std::uintptr_t values,
              bool transpose, std::uintptr_t stream, int allocator_slot) {
    dispatch_csr(index_dtype, value_dtype, "scankit.SpmvPlan", [&](auto i, auto v) {
      using I = typename decltype(i)::type;
      using V = typename decltype(v)::type;
      sparse::spmv_options options;
      options.operation = transpose ? sparse::spmv_operation::transpose : sparse::spmv_operation::non_transpose;
      plan_ = std::make_unique<spmv_plan<I, V>>(view_of<I, V>(rows, cols, nonzeros, offsets, columns, values), options,
                                                as_stream(stream), workspace_for(stream),
                                                resource_for_slot(allocator_slot));
    });
  }

  void multiply(double alpha, std::uintptr_t x, std::int64_t x_size, double beta, std::uintptr_t y,
                std::int64_t y_size, std::uintptr_t stream) const {
    std::visit(
        [&](const auto& plan) {
          using V = typename plan_value<std::remove_cv_t<std::remove_reference_t<decltype(*plan)>>>::type;
          sparse::spmv(*plan, static_cast<V>(alpha), sparse::dense_vector<const V>{as_pointer<const V>(x), x_size},
                       static_cast<V>(beta), sparse::dense_vector<V>{as_pointer<V>(y), y_size}, as_stream(stream),
                       workspace_for(stream));
        },
        plan_);
  }

  void update_values(std::uintptr_t stream) {
    std::visit([&](auto& plan) { plan->update_values(as_stream(stream), workspace_for(stream)); }, plan_);
  }

  std::string kernel() const {
    return std::visit([](const auto& plan) { return std::string(sparse::to_string(plan->kernel())); }, plan_);
  }
  std::size_t device_bytes() const {
    return std::visit([](const auto& plan) { return plan->device_bytes(); }, plan_);
  }

 private:
  std::variant<std::unique_ptr<spmv_plan<std::int32_t, float>>, std::unique_ptr<spmv_plan<std::int32_t, double>>,
               std::unique_ptr<spmv_plan<std::int64_t, float>>, std::unique_ptr<spmv_plan<std::int64_t, double>>>
      plan_;
};

// A CSR matrix coo_to_csr built (its own memory), until the Python side copies it into arrays of
// the caller's kind.
class built_csr {
 public:
  template <class Index, class Value>
  explicit built_csr(device_csr<Index, Value>&& m)
      : rows_(m.rows()), nonzeros_(m.nonzeros()), index_bytes_(sizeof(Index)), value_bytes_(sizeof(Value)),
        matrix_(std::make_shared<device_csr<Index, Value>>(std::move(m))) {
    auto* held = static_cast<device_csr<Index, Value>*>(matrix_.get());
    offsets_ = held->offsets();
    columns_ = held->columns();
    values_ = held->values();
  }
  std::int64_t nonzeros() const { return nonzeros_; }
  // Copies the arrays into the caller's (rows + 1 offsets, nonzeros columns and values).
  void copy_to(std::uintptr_t offsets, std::uintptr_t columns, std::uintptr_t values, std::uintptr_t stream) const {
    const cudaStream_t s = as_stream(stream);
    SCANKIT_CUDA_CHECK(cudaMemcpyAsync(as_pointer<void>(offsets), offsets_, (rows_ + 1) * index_bytes_,
                                       cudaMemcpyDeviceToDevice, s));
    if (nonzeros_ == 0) return;
    SCANKIT_CUDA_CHECK(cudaMemcpyAsync(as_pointer<void>(columns), columns_, nonzeros_ * index_bytes_,
                                       cudaMemcpyDeviceToDevice, s));
    SCANKIT_CUDA_CHECK(cudaMemcpyAsync(as_pointer<void>(values), values_, nonzeros_ * value_bytes_,
                                       cudaMemcpyDeviceToDevice, s));
  }

 private:
  std::int64_t rows_;
  std::int64_t nonzeros_;
  std::int64_t index_bytes_;
  std::int64_t value_bytes_;
  std::shared_ptr<void> matrix_;
  const void* offsets_ = nullptr;
  const void* columns_ = nullptr;
  const void* values_ = nullptr;
};

// A host vector handed to NumPy without a copy: the array owns it.
template <class T>
nb::ndarray<nb::numpy, T, nb::ndim<1>> to_numpy(std::vector<T>&& values) {
  auto* owned = new std::vector<T>(std::move(values));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::ndarray<nb::numpy, T, nb::ndim<1>>(owned->data(), {owned->size()}, owner);
}

// A Matrix Market file's triplets (0-based, in file order; symmetric files expanded) as NumPy
// arrays, with the matrix's shape.
template <class Index, class Value>
nb::tuple read_triplets(const std::string& path) {
  sparse::coo_matrix_host<Index, Value> coo;
  {
    const nb::gil_scoped_release unlocked;  // parsing touches no Python object
    coo = sparse::read_matrix_market<Index, Value>(path);
  }
  return nb::make_tuple(static_cast<std::int64_t>(coo.rows), static_cast<std::int64_t>(coo.cols),
                        to_numpy(std::move(coo.row)), to_numpy(std::move(coo.col)), to_numpy(std::move(coo.value)));
}

}  // namespace

void bind_sparse(nb::module_& m) {
  m.def("read_matrix_market", [](const std::string& path, const std::string& index_dtype,
                                 const std::string& value_dtype) {
    return dispatch_csr(index_dtype, value_dtype, "scankit.read_matrix_market", [&](auto i, auto v) {
      return read_triplets<typename decltype(i)::type, typename decltype(v)::type>(path);
    });
  });

  nb::class_<plan_holder>(m, "SpmvPlan")
      .def(nb::init<const std::string&, const std::string&, std::int64_t, std::int64_t, std::int64_t, std::uintptr_t,
                    std::uintptr_t, std::uintptr_t, bool, std::uintptr_t, int>())
      .def("multiply", &plan_holder::multiply)
      .def("update_values", &plan_holder::update_values)
      .def_prop_ro("kernel", &plan_holder::kernel)
      .def_prop_ro("device_bytes", &plan_holder::device_bytes);

  nb::class_<built_csr>(m, "BuiltCsr")
      .def_prop_ro("nonzeros", &built_csr::nonzeros)
      .def("copy_to", &built_csr::copy_to);

  m.def("coo_to_csr", [](const std::string& index_dtype, const std::string& value_dtype, std::uintptr_t rows,
                         std::uintptr_t cols, std::uintptr_t values, std::int64_t nonzeros, std::int64_t n_rows,
                         std::int64_t n_cols, std::uintptr_t stream, int allocator_slot) {
    return dispatch_csr(index_dtype, value_dtype, "scankit.coo_to_csr", [&](auto i, auto v) {
      using I = typename decltype(i)::type;
      using V = typename decltype(v)::type;
      return built_csr(sparse::coo_to_csr(as_pointer<const I>(rows), as_pointer<const I>(cols),
                                          as_pointer<const V>(values), nonzeros, static_cast<I>(n_rows),
                                          static_cast<I>(n_cols), as_stream(stream), workspace_for(stream),
                                          resource_for_slot(allocator_slot)));
    });
  });
}

}  // namespace scankit::python
