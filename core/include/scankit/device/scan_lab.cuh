// The scan lab's template API: every strategy of the textbook (three-launch, reduce-then-scan,
// chained) beside the production decoupled look-back, chosen at run time by options.strategy,
// with the shapes of scankit/device/scan.cuh. Including this header compiles all of them for
// each type and operator used; production code includes scan.cuh instead.
#pragma once

#include "scankit/device/kernel/scan_textbook.cuh"
#include "scankit/device/scan.cuh"

namespace scankit::device::lab {

template <class Policy = tuned, class AccT = void, class In, class Out, class Op>
void inclusive_scan(In in, Out out, std::int64_t n, Op op, cudaStream_t stream = nullptr, workspace* ws = nullptr,
                    const scan_options& options = {}) {
  using T = device_detail::pick_t<AccT, device_detail::inclusive_accumulator_t<In, Op>>;
  device_detail::dispatch_lab_scan<resolved_policy<Policy, T>, T, Op, resolved_staged_policy<Policy, T>>(
      "scankit::lab::inclusive_scan", device_detail::input_view(in), device_detail::output_view(out), n, false, T{},
      op, stream, ws, options);
}

template <class Policy = tuned, class AccT = void, class In, class Out, class Init, class Op>
void exclusive_scan(In in, Out out, std::int64_t n, Init init, Op op, cudaStream_t stream = nullptr,
                    workspace* ws = nullptr, const scan_options& options = {}) {
  using T = device_detail::pick_t<AccT, device_detail::exclusive_accumulator_t<In, Init, Op>>;
  device_detail::dispatch_lab_scan<resolved_policy<Policy, T>, T, Op, resolved_staged_policy<Policy, T>>(
      "scankit::lab::exclusive_scan", device_detail::input_view(in), device_detail::output_view(out), n, true,
      static_cast<T>(init), op, stream, ws, options);
}

template <class T, class Op, class Policy = tuned>
std::size_t scan_workspace_bytes(std::int64_t n, const scan_options& options = {}) {
  return device_detail::lab_workspace_bytes<resolved_policy<Policy, T>, resolved_staged_policy<Policy, T>, T>(
      "scankit::lab::scan_workspace_bytes", n, options);
}

}  // namespace scankit::device::lab
