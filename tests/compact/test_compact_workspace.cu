// Caller-allocated workspaces for compaction: memory of exactly the largest size query
// (scankit::compact_workspace_bytes) serves every call that query covers, in any order. The two
// strategies lay the memory out differently:
//   single pass           a state region (a slot per tile), no scratch
//   three-step, in place  no state region, but scratch for the offsets, the staged copy of the
//                         input and the scan's own workspace: almost all of the memory
// so a workspace that kept the single pass's state region would ask the three-step call for more
// than the query promised it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "compact_test_util.cuh"

namespace scankit::testing {
namespace {

constexpr keep_in_range<std::int32_t> compact_ws_pred{-500, 250};

compact_options three_step_options() {
  compact_options options;
  options.strategy = compact_strategy::three_step;
  return options;
}

// select_if on n random int32 through `ws`: the single pass out of place, or the three-step
// strategy in place; checked against the host reference.
void checked_select_if(bool three_step_in_place, std::int64_t n, workspace& ws, std::mt19937_64& rng) {
  SCOPED_TRACE(std::string(three_step_in_place ? "three-step in place" : "single pass") + ", n = " +
               std::to_string(n));
  std::uniform_int_distribution<std::int32_t> value(-1000, 1000);
  std::vector<std::int32_t> host_in(static_cast<std::size_t>(n));
  for (auto& x : host_in) x = value(rng);
  std::vector<std::int32_t> want(host_in.size());
  const std::int64_t want_count = scankit::reference::select_if(host_in.data(), want.data(), n, compact_ws_pred);

  device_buffer<std::int32_t> in(host_in);
  device_buffer<std::int32_t> out(host_in.size());
  device_count count;
  count.poison();
  if (three_step_in_place) {
    scankit::select_if(in.data(), in.data(), count.get(), n, compact_ws_pred, nullptr, &ws, three_step_options());
  } else {
    out.poison();
    scankit::select_if(in.data(), out.data(), count.get(), n, compact_ws_pred, nullptr, &ws);
  }
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  ASSERT_EQ(count.value(), want_count);
  const std::vector<std::int32_t> got = (three_step_in_place ? in : out).download();
  EXPECT_TRUE(same_items(got, want, want_count));
  if (three_step_in_place) {
    EXPECT_TRUE(same_items(got, host_in, n - want_count, want_count, want_count)) << "beyond the count";
  } else {
    EXPECT_TRUE(still_poisoned(got, want_count));
  }
}

// Runs the sequence (true: three-step in place, false: single pass) on caller memory of exactly
// max(query of the single pass, query of the three-step call in place), pre-filled with words
// that read as tile statuses.
void run_on_largest_query(std::int64_t n, const std::vector<bool>& three_step_in_place, std::mt19937_64& rng) {
  SCOPED_TRACE("n = " + std::to_string(n));
  const std::size_t single_pass_bytes = scankit::compact_workspace_bytes(n, sizeof(std::int32_t));
  const std::size_t three_step_bytes = scankit::compact_workspace_bytes(n, sizeof(std::int32_t), 0, three_step_options());
  ASSERT_GT(single_pass_bytes, 0u);
  ASSERT_GT(three_step_bytes, 0u);
  const std::size_t bytes = std::max(single_pass_bytes, three_step_bytes);
  device_buffer<std::uint64_t> memory((bytes + 7) / 8);
  memory.upload(std::vector<std::uint64_t>(memory.size(), 0x0000000600000006ull));
  workspace ws(memory.data(), bytes);
  for (std::size_t call = 0; call < three_step_in_place.size(); ++call) {
    SCOPED_TRACE("call " + std::to_string(call + 1) + " on the workspace");
    checked_select_if(three_step_in_place[call], n, ws, rng);
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_EQ(ws.capacity_bytes(), bytes) << "a caller's workspace never grows";
}

// Today's workspace keeps the single pass's state region and then asks the three-step call for
// that much more than the query said: it throws.
TEST(CompactWorkspace, CallerMemoryOfLargestQueryServesSinglePassThenThreeStepInPlace) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  for (std::int64_t n : {std::int64_t{3'000'017}, std::int64_t{200'003}}) {
    run_on_largest_query(n, {false, true, false, true}, rng);
  }
}

// The reverse order (the third call is the one today's workspace rejects).
TEST(CompactWorkspace, CallerMemoryOfLargestQueryServesThreeStepInPlaceThenSinglePass) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  for (std::int64_t n : {std::int64_t{3'000'017}, std::int64_t{200'003}}) {
    run_on_largest_query(n, {true, false, true}, rng);
  }
}

}  // namespace
}  // namespace scankit::testing
