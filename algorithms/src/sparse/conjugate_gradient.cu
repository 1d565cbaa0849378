// Conjugate gradient on the GPU (scankit/sparse/conjugate_gradient.hpp): the SpMV through a plan
// made once, the vector work in the kernels of device/sparse/conjugate_gradient_kernels.cuh, one
// wait per iteration for the residual.
#include "scankit/sparse/conjugate_gradient.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <cuda_runtime.h>

#include "scankit/detail/nvtx_range.hpp"
#include "scankit/detail/pinned_host_block.hpp"
#include "scankit/device/sparse/conjugate_gradient_kernels.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/error.hpp"

namespace scankit::sparse {
namespace {

using device_detail::cg_block_threads;
using device_detail::cg_reduction;
using device_detail::cg_scalars;
using device_detail::cg_sums;
using device_detail::optional_value;
using device_detail::single_pass_header;

constexpr const char* function_name = "scankit::sparse::conjugate_gradient";

[[noreturn]] void fail(const std::string& what) { throw error(std::string(function_name) + ": " + what); }

// The checks that need no plan: everything but the matrix's own arrays.
template <class Index, class Value>
void check_arguments(const csr_view<Index, Value>& a, dense_vector<const Value> b, dense_vector<Value> x,
                     const cg_options& options) {
  if (a.rows < 0 || a.cols < 0) fail("negative matrix size " + std::to_string(a.rows) + " x " + std::to_string(a.cols));
  if (a.rows != a.cols) {
    fail("the matrix is " + std::to_string(a.rows) + " x " + std::to_string(a.cols) + ", not square");
  }
  const auto n = static_cast<std::int64_t>(a.rows);
  if (b.size != n) fail("b has " + std::to_string(b.size) + " values, the matrix " + std::to_string(n) + " rows");
  if (x.size != n) fail("x has " + std::to_string(x.size) + " values, the matrix " + std::to_string(n) + " rows");
  if (n > 0 && b.data == nullptr) fail("b is null");
  if (n > 0 && x.data == nullptr) fail("x is null");
  if (n > 0) {
    const auto b_begin = reinterpret_cast<std::uintptr_t>(b.data), x_begin = reinterpret_cast<std::uintptr_t>(x.data);
    const auto bytes = static_cast<std::uintptr_t>(n) * sizeof(Value);
    if (b_begin < x_begin + bytes && x_begin < b_begin + bytes) fail("b and x overlap");
  }
  if (options.max_iterations < 0) fail("max_iterations = " + std::to_string(options.max_iterations) + " is negative");
  if (!(options.tolerance >= 0.0)) fail("tolerance = " + std::to_string(options.tolerance) + " is negative or NaN");
}

// The host end of the scalars' copy: the thread's pinned region (scankit/detail/pinned_host_block.hpp),
// so that the copy is asynchronous and the next iteration's work can be queued behind it before the
// host waits. A progress callback may start another solve on the same thread: the outer solve has
// read its copy before it calls back, and queues the next copy after.
cg_scalars* pinned_report() {
  static_assert(sizeof(cg_scalars) <= detail::pinned_region_bytes, "the scalars fit the region");
  return static_cast<cg_scalars*>(detail::pinned_host_region(detail::pinned_region::solver_report));
}

class event {
 public:
  event() { SCANKIT_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  ~event() { (void)cudaEventDestroy(event_); }
  event(const event&) = delete;
  event& operator=(const event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// Waits for the stream when the solve ends, normally or by an exception (a throwing progress
// callback), before the buffers the queued work uses are released.
struct stream_drain {
  cudaStream_t stream;
  ~stream_drain() { (void)cudaStreamSynchronize(stream); }
};

unsigned grid_for(std::int64_t n) {
  int device = 0, sms = 0;
  SCANKIT_CUDA_CHECK(cudaGetDevice(&device));
  SCANKIT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  // Enough blocks to keep every SM full (8 blocks of 256 threads), never more than the items need.
  const std::int64_t blocks = (n + cg_block_threads - 1) / cg_block_threads;
  return static_cast<unsigned>(std::clamp<std::int64_t>(blocks, 1, static_cast<std::int64_t>(sms) * 8));
}

// Where a solve keeps its things in the workspace's scratch: r, p, Ap, the scalars, the dot
// products' ticket and partials, and last the SpMV's own workspace (wrapped), each 256-byte aligned.
struct cg_layout {
  static constexpr std::size_t align = 256;
  static std::size_t up(std::size_t bytes) { return (bytes + align - 1) / align * align; }

  unsigned grid;  // blocks of the vector kernels, one partial sum each
  std::size_t vector_bytes, scalars_at, header_at, partials_at, spmv_at, spmv_bytes, total;

  cg_layout(std::int64_t n, std::size_t value_bytes, unsigned grid_, std::size_t spmv_workspace)
      : grid(grid_),
        vector_bytes(up(static_cast<std::size_t>(n) * value_bytes)),
        scalars_at(3 * vector_bytes),
        header_at(scalars_at + up(sizeof(cg_scalars))),
        partials_at(header_at + up(sizeof(single_pass_header))),
        spmv_at(partials_at + up(grid * sizeof(optional_value<cg_sums>))),
        spmv_bytes(spmv_workspace),
        total(spmv_at + up(spmv_workspace)) {}
};

template <class Index, class Value>
cg_layout layout_for(const spmv_plan<Index, Value>& plan) {
  const auto n = static_cast<std::int64_t>(plan.matrix().rows);
  return cg_layout(n, sizeof(Value), grid_for(n), spmv_workspace_bytes(plan));
}

template <class Index, class Value>
cg_result solve(const spmv_plan<Index, Value>& plan, dense_vector<const Value> b, dense_vector<Value> x,
                const cg_options& options, cudaStream_t stream, workspace* ws) {
  const auto n = static_cast<std::int64_t>(plan.matrix().rows);
  const ::scankit::detail::nvtx_range nvtx("scankit::sparse::conjugate_gradient");
  cg_result result;
  if (n == 0) {
    result.converged = true;
    return result;
  }
  // Everything the solve needs on the device comes from one workspace: the caller's (no
  // allocation once it has served a solve on this plan), or a temporary one, whose memory goes
  // back stream-ordered when the solve ends.
  std::optional<workspace> temporary;
  workspace& storage = ws != nullptr ? *ws : temporary.emplace();
  const cg_layout layout = layout_for(plan);
  const unsigned grid = layout.grid;
  char* const scratch = static_cast<char*>(storage.prepare(0, layout.total, stream).scratch);
  Value* const r = reinterpret_cast<Value*>(scratch);
  Value* const p = reinterpret_cast<Value*>(scratch + layout.vector_bytes);
  Value* const ap = reinterpret_cast<Value*>(scratch + 2 * layout.vector_bytes);
  auto* const scalars = reinterpret_cast<cg_scalars*>(scratch + layout.scalars_at);
  auto* const header = reinterpret_cast<single_pass_header*>(scratch + layout.header_at);
  auto* const partials = reinterpret_cast<optional_value<cg_sums>*>(scratch + layout.partials_at);
  // The SpMV's tile states (merge-path kernel) in the last part, zeroed by the wrapper on first use.
  std::optional<workspace> spmv_storage;
  if (layout.spmv_bytes > 0) spmv_storage.emplace(scratch + layout.spmv_at, layout.spmv_bytes);
  workspace* const spmv_ws = spmv_storage ? &*spmv_storage : nullptr;
  cg_scalars* const report = pinned_report();
  event reported;
  stream_drain drain{stream};
  SCANKIT_CUDA_CHECK(cudaMemsetAsync(header, 0, sizeof(single_pass_header), stream));
  const cg_reduction reduction{partials, header};
  const dense_vector<const Value> p_in{p, n};
  const dense_vector<Value> ap_out{ap, n};
  const auto wait_for_report = [&] {
    SCANKIT_CUDA_CHECK(cudaEventSynchronize(reported.get()));
    return *report;
  };
  const auto copy_report = [&] {
    SCANKIT_CUDA_CHECK(cudaMemcpyAsync(report, scalars, sizeof(cg_scalars), cudaMemcpyDeviceToHost, stream));
    SCANKIT_CUDA_CHECK(cudaEventRecord(reported.get(), stream));
  };
  // Ap = A p and alpha: what the next update needs. Touches only Ap and alpha (and the breakdown flag).
  const auto enqueue_step = [&] {
    spmv(plan, Value(1), p_in, Value(0), ap_out, stream, spmv_ws);
    device_detail::launch_kernel("cg_step_kernel", device_detail::cg_step_kernel<Value>, grid, cg_block_threads, stream,
                                 static_cast<const Value*>(p), static_cast<const Value*>(ap), static_cast<long long>(n),
                                 reduction, scalars);
  };

  // r = b - A x, p = r, r.r and b.b.
  SCANKIT_CUDA_CHECK(cudaMemcpyAsync(r, b.data, n * sizeof(Value), cudaMemcpyDeviceToDevice, stream));
  spmv(plan, Value(-1), dense_vector<const Value>{x.data, n}, Value(1), dense_vector<Value>{r, n}, stream, spmv_ws);
  device_detail::launch_kernel("cg_start_kernel", device_detail::cg_start_kernel<Value>, grid, cg_block_threads, stream,
                               static_cast<const Value*>(r), b.data, p, static_cast<long long>(n), reduction,
                               scalars);
  copy_report();
  cg_scalars now = wait_for_report();
  if (now.bb == 0.0) {  // b = 0: x = 0 solves it exactly
    SCANKIT_CUDA_CHECK(cudaMemsetAsync(x.data, 0, n * sizeof(Value), stream));
    result.converged = true;
    if (options.progress) options.progress(0, 0.0);
    return result;
  }
  const double b_norm = std::sqrt(now.bb);
  result.relative_residual = std::sqrt(now.rr) / b_norm;
  result.converged = result.relative_residual <= options.tolerance;
  if (options.progress) options.progress(0, result.relative_residual);
  if (result.converged || options.max_iterations == 0 || !std::isfinite(result.relative_residual)) return result;

  enqueue_step();
  for (int k = 1; k <= options.max_iterations; ++k) {
    device_detail::launch_kernel("cg_update_kernel", device_detail::cg_update_kernel<Value>, grid, cg_block_threads,
                                 stream, x.data, r, static_cast<const Value*>(p), static_cast<const Value*>(ap),
                                 static_cast<long long>(n), reduction, scalars);
    copy_report();
    // The next iteration's direction, SpMV and alpha, queued before the wait so that the GPU is
    // busy while the host tests convergence. They write only p, Ap and alpha: when the solve stops
    // here, x and r are those of iteration k.
    if (k < options.max_iterations) {
      device_detail::launch_kernel("cg_direction_kernel", device_detail::cg_direction_kernel<Value>, grid,
                                   cg_block_threads, stream, static_cast<const Value*>(r), p, static_cast<long long>(n),
                                   static_cast<const cg_scalars*>(scalars));
      enqueue_step();
    }
    now = wait_for_report();
    if (now.breakdown != 0) {  // iteration k's update was skipped: x and r are those of k - 1
      result.breakdown = true;
      return result;
    }
    result.iterations = k;
    result.relative_residual = std::sqrt(now.rr) / b_norm;
    result.converged = result.relative_residual <= options.tolerance;
    if (options.progress) options.progress(k, result.relative_residual);
    if (result.converged || !std::isfinite(result.relative_residual)) break;
  }
  return result;
}

template <class Index, class Value>
cg_result solve_plan(const spmv_plan<Index, Value>& plan, dense_vector<const Value> b, dense_vector<Value> x,
                     const cg_options& options, cudaStream_t stream, workspace* ws) {
  check_arguments(plan.matrix(), b, x, options);
  return solve(plan, b, x, options, stream, ws);
}

template <class Index, class Value>
cg_result solve_matrix(const csr_view<Index, Value>& a, dense_vector<const Value> b, dense_vector<Value> x,
                       const cg_options& options, cudaStream_t stream, workspace* ws) {
  check_arguments(a, b, x, options);
  if (options.spmv.operation != spmv_operation::non_transpose) {
    fail("options.spmv asks for the transposed product; A is symmetric, use non_transpose");
  }
  if (a.rows == 0) {
    cg_result result;
    result.converged = true;
    return result;
  }
  const spmv_plan<Index, Value> plan(a, options.spmv, stream, ws);
  return solve(plan, b, x, options, stream, ws);
}

}  // namespace

#define SCANKIT_DEFINE_CONJUGATE_GRADIENT(I, V)                                                                   \
  std::size_t conjugate_gradient_workspace_bytes(const spmv_plan<I, V>& plan) {                                   \
    return workspace::bytes_needed(0, layout_for(plan).total);                                                    \
  }                                                                                                               \
  cg_result conjugate_gradient(const csr_view<I, V>& a, dense_vector<const V> b, dense_vector<V> x,              \
                               const cg_options& options, cudaStream_t stream, workspace* ws) {                   \
    return solve_matrix(a, b, x, options, stream, ws);                                                            \
  }                                                                                                               \
  cg_result conjugate_gradient(const spmv_plan<I, V>& plan, dense_vector<const V> b, dense_vector<V> x,          \
                               const cg_options& options, cudaStream_t stream, workspace* ws) {                   \
    return solve_plan(plan, b, x, options, stream, ws);                                                           \
  }
SCANKIT_DEFINE_CONJUGATE_GRADIENT(std::int32_t, float)
SCANKIT_DEFINE_CONJUGATE_GRADIENT(std::int32_t, double)
SCANKIT_DEFINE_CONJUGATE_GRADIENT(std::int64_t, float)
SCANKIT_DEFINE_CONJUGATE_GRADIENT(std::int64_t, double)
#undef SCANKIT_DEFINE_CONJUGATE_GRADIENT

}  // namespace scankit::sparse
