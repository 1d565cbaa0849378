// The routes of the radix sort's digit passes when trivial passes are skipped: for every mask of
// up to 9 passes, both buffer schemes, the passes that run must move the data from the source to
// the buffer the caller expects, never read and write one buffer in one pass, never write the
// source of an out-of-place sort, and skip as many passes as the parity allows.
#include <gtest/gtest.h>

#include "scankit/device/sort/radix_pass_route.cuh"

namespace {

using scankit::device_detail::route_radix_pass;

constexpr int source = -1;

void check_routes(unsigned trivial, int passes, bool double_buffered) {
  SCOPED_TRACE("trivial mask " + std::to_string(trivial) + ", passes " + std::to_string(passes) +
               (double_buffered ? ", double buffer" : ", out of place"));
  // Where the current data lives: the source, or buffer 0 / 1 (the source is buffer 0 when
  // double-buffered).
  int data = double_buffered ? 0 : source;
  int runs = 0;
  bool seen_first = false;
  for (int pass = 0; pass < passes; ++pass) {
    const auto route = route_radix_pass(trivial, pass, passes, double_buffered);
    const bool is_trivial = (trivial >> pass) & 1u;
    if (!route.run) {
      EXPECT_TRUE(is_trivial) << "pass " << pass << " skipped but not trivial";
      continue;
    }
    ++runs;
    EXPECT_EQ(route.read, data) << "pass " << pass << " reads where the data is not";
    EXPECT_NE(route.read, route.write) << "pass " << pass << " in place";
    EXPECT_TRUE(route.write == 0 || route.write == 1);
    EXPECT_EQ(route.first, !seen_first) << "pass " << pass;
    seen_first = true;
    data = route.write;
  }
  const int expected_buffer = double_buffered ? passes % 2 : 0;
  EXPECT_EQ(data, expected_buffer) << "the result is not where the caller expects it";
  int nontrivial = 0;
  for (int pass = 0; pass < passes; ++pass) nontrivial += ((trivial >> pass) & 1u) ? 0 : 1;
  // The fewest runs that put the result in place: the non-trivial passes, plus one when the
  // parity (double buffer) or an empty run list (out of place) asks for it.
  const int extra = double_buffered ? (nontrivial % 2 != passes % 2 ? 1 : 0) : (nontrivial == 0 ? 1 : 0);
  EXPECT_EQ(runs, nontrivial + extra);
}

TEST(RadixPassRoute, EveryMaskUpToNinePasses) {
  for (int passes = 1; passes <= 9; ++passes) {
    for (unsigned trivial = 0; trivial < (1u << passes); ++trivial) {
      check_routes(trivial, passes, false);
      check_routes(trivial, passes, true);
    }
  }
}

TEST(RadixPassRoute, NoTrivialPassMatchesThePlainPingPong) {
  for (int passes = 1; passes <= 13; ++passes) {
    for (int pass = 0; pass < passes; ++pass) {
      const auto out_of_place = route_radix_pass(0u, pass, passes, false);
      EXPECT_TRUE(out_of_place.run);
      EXPECT_EQ(out_of_place.write, (passes - 1 - pass) % 2);
      const auto double_buffer = route_radix_pass(0u, pass, passes, true);
      EXPECT_EQ(double_buffer.read, pass % 2);
      EXPECT_EQ(double_buffer.write, (pass + 1) % 2);
    }
  }
}

TEST(RadixPassRoute, BitsAbovePassesAreIgnored) {
  const auto route = route_radix_pass(~0u << 4, 3, 4, false);
  EXPECT_TRUE(route.run);
  EXPECT_EQ(route.write, 0);
}

}  // namespace
