// How a rank's scan continues from the ranks before it: pure host logic over the shard totals
// that every rank gathers (checked by host tests).
//
// Each rank reduces its shard to one total (the identity for an empty shard); the totals are
// gathered to every rank; rank r folds the totals of the non-empty shards before it, in rank
// order, and starts its local scan from that value. Folding in rank order keeps operand order,
// so the result does not depend on commutativity; floating-point sums associate per shard and
// may differ from a one-GPU scan in the last bits (integer, max and min results are exact).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "scankit/error.hpp"
#include "scankit/operators.hpp"
#include "scankit/scan_options.hpp"

namespace scankit::distributed {

// Operators the distributed scan supports: those the precompiled reduce offers.
inline bool scan_op_supported(scan_op op) noexcept {
  return op == scan_op::plus || op == scan_op::maximum || op == scan_op::minimum;
}

// The identity of `op` over T (what an empty shard contributes).
template <class T>
T scan_identity(scan_op op) {
  switch (op) {
    case scan_op::plus: return T{};
    // Infinities for floating point: a shard of -inf must reduce to -inf under max, not to lowest().
    case scan_op::maximum:
      return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
    case scan_op::minimum:
      return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
    default: throw error("scankit::distributed: scan operator not supported (plus, maximum, minimum)");
  }
}

// a op b, with the library's own operator definitions (scankit/operators.hpp).
template <class T>
T scan_combine(scan_op op, const T& a, const T& b) {
  switch (op) {
    case scan_op::plus: return plus_op{}(a, b);
    case scan_op::maximum: return maximum_op{}(a, b);
    case scan_op::minimum: return minimum_op{}(a, b);
    default: throw error("scankit::distributed: scan operator not supported (plus, maximum, minimum)");
  }
}

// The fold of the totals of the non-empty shards before `rank`, in rank order, starting from
// `init` when there is one (exclusive scan) or from the first such total (inclusive scan).
// Empty when there is nothing to fold: an inclusive scan on rank `rank` then runs unchanged, and
// an exclusive one starts from `init`. sizes and totals have one entry per rank.
template <class T>
std::optional<T> rank_prefix(const std::vector<std::int64_t>& sizes, const std::vector<T>& totals, int rank,
                             scan_op op, std::optional<T> init = std::nullopt) {
  if (sizes.size() != totals.size() || rank < 0 || static_cast<std::size_t>(rank) >= sizes.size()) {
    throw error("scankit::distributed::rank_prefix: rank " + std::to_string(rank) + " with " +
                std::to_string(sizes.size()) + " sizes and " + std::to_string(totals.size()) + " totals");
  }
  std::optional<T> prefix = init;
  for (int r = 0; r < rank; ++r) {
    const auto i = static_cast<std::size_t>(r);
    if (sizes[i] == 0) continue;
    prefix = prefix ? scan_combine(op, *prefix, totals[i]) : totals[i];
  }
  return prefix;
}

}  // namespace scankit::distributed
