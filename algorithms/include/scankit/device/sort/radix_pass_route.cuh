// Device layer of the radix sort: which buffers a digit pass reads and writes once the passes
// whose digit is the same for every key are skipped.
//
// The histogram (radix_histogram.cuh) counts every pass's digits before any pass runs, so the
// device knows which passes are trivial (one digit holds all n keys: the pass would leave the
// order as it is). The host does not know, and enqueues every pass without synchronising; each
// pass kernel works out its route from the trivial mask and either runs or returns at once. The
// passes that run ping-pong as before, arranged so that the last one still writes the buffer the
// caller expects:
//   out of place  the source is only read; runs alternate between the final buffer (0) and the
//                 other (1) so that the last run writes buffer 0. If every pass is trivial, one
//                 still runs (the first): it copies the source into buffer 0.
//   double buffer the source is buffer 0; run k writes buffer (k + 1) % 2, and the caller expects
//                 the result in buffer passes % 2 (its selector flips once per pass). When the
//                 number of runs has the other parity, the first trivial pass runs as well (its
//                 tiles hold one digit each, so it is a stable copy).
// Plain arithmetic on a mask (host and device): the tests check every mask of up to 8 passes.
#pragma once

#include "scankit/operators.hpp"

namespace scankit::device_detail {

SCANKIT_HOST_DEVICE constexpr int radix_popcount(unsigned x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  return static_cast<int>((((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
}

struct radix_pass_route {
  bool run;   // false: the pass is skipped (returns at once)
  int read;   // -1: the sort's source; 0 or 1: that buffer
  int write;  // 0 or 1
  bool first; // the first pass that runs (reads the source)
};

// trivial_mask: bit p set when pass p's digit is the same for every key.
SCANKIT_HOST_DEVICE radix_pass_route route_radix_pass(unsigned trivial_mask, int pass, int passes,
                                                             bool double_buffered) {
  const unsigned all = passes >= 32 ? ~0u : (1u << passes) - 1u;
  trivial_mask &= all;
  const unsigned lowest_trivial = trivial_mask & (0u - trivial_mask);
  const int nontrivial = passes - radix_popcount(trivial_mask);
  const bool promote = double_buffered ? (nontrivial % 2) != (passes % 2) : nontrivial == 0;
  const unsigned runs_mask = (all & ~trivial_mask) | (promote ? lowest_trivial : 0u);
  const int runs = radix_popcount(runs_mask);
  radix_pass_route route{};
  route.run = (runs_mask >> pass) & 1u;
  const int k = radix_popcount(runs_mask & ((1u << pass) - 1u));  // runs before this pass
  route.first = k == 0;
  if (double_buffered) {
    route.write = (k + 1) % 2;
    route.read = k % 2;
  } else {
    route.write = (runs - 1 - k) % 2;
    route.read = k == 0 ? -1 : (runs - k) % 2;
  }
  return route;
}

}  // namespace scankit::device_detail
