#include "scankit/scan_options.hpp"

#include <cuda_runtime_api.h>

#include "scankit/error.hpp"
#include "scankit/scan.hpp"

namespace scankit {

const char* to_string(scan_strategy s) noexcept {
  switch (s) {
    case scan_strategy::automatic: return "automatic";
    case scan_strategy::three_launch: return "three_launch";
    case scan_strategy::reduce_then_scan: return "reduce_then_scan";
    case scan_strategy::chained: return "chained";
    case scan_strategy::decoupled_look_back: return "decoupled_look_back";
  }
  return "?";
}

const char* to_string(block_scan_algorithm a) noexcept {
  switch (a) {
    case block_scan_algorithm::automatic: return "automatic";
    case block_scan_algorithm::kogge_stone_double_buffer: return "kogge_stone_double_buffer";
    case block_scan_algorithm::kogge_stone_read_sync_write: return "kogge_stone_read_sync_write";
    case block_scan_algorithm::brent_kung: return "brent_kung";
    case block_scan_algorithm::warp_of_warps: return "warp_of_warps";
  }
  return "?";
}

const char* to_string(scan_op op) noexcept {
  switch (op) {
    case scan_op::plus: return "plus";
    case scan_op::maximum: return "maximum";
    case scan_op::minimum: return "minimum";
    case scan_op::bit_and: return "bit_and";
    case scan_op::bit_or: return "bit_or";
    case scan_op::bit_xor: return "bit_xor";
  }
  return "?";
}

namespace {
template <class E, int Count>
E parse(const std::string& name, const E (&values)[Count], const char* what) {
  std::string known;
  for (E v : values) {
    if (name == to_string(v)) return v;
    known += known.empty() ? "" : ", ";
    known += to_string(v);
  }
  throw error(std::string("scankit: unknown ") + what + " '" + name + "' (known: " + known + ")");
}
}  // namespace

scan_strategy parse_scan_strategy(const std::string& name) {
  static constexpr scan_strategy all[] = {scan_strategy::automatic, scan_strategy::three_launch,
                                          scan_strategy::reduce_then_scan, scan_strategy::chained,
                                          scan_strategy::decoupled_look_back};
  return parse(name, all, "scan strategy");
}

block_scan_algorithm parse_block_scan_algorithm(const std::string& name) {
  static constexpr block_scan_algorithm all[] = {
      block_scan_algorithm::automatic, block_scan_algorithm::kogge_stone_double_buffer,
      block_scan_algorithm::kogge_stone_read_sync_write, block_scan_algorithm::brent_kung,
      block_scan_algorithm::warp_of_warps};
  return parse(name, all, "block scan algorithm");
}

scan_op parse_scan_op(const std::string& name) {
  static constexpr scan_op all[] = {scan_op::plus,   scan_op::maximum, scan_op::minimum,
                                    scan_op::bit_and, scan_op::bit_or,  scan_op::bit_xor};
  return parse(name, all, "scan operator");
}

bool cuda_device_available() noexcept {
  int count = 0;
  const cudaError_t code = cudaGetDeviceCount(&count);
  if (code != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return count > 0;
}

}  // namespace scankit
