// Host tests of the options (names, parsing, defaults), the workspace sizing rules and the error
// types. No GPU is needed: nothing here touches device memory.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "scankit/error.hpp"
#include "scankit/lab/scan_lab.hpp"
#include "scankit/scan.hpp"
#include "scankit/scan_options.hpp"
#include "scankit/workspace.hpp"

namespace {

using scankit::block_scan_algorithm;
using scankit::scan_op;
using scankit::scan_options;
using scankit::scan_strategy;

const std::vector<scan_strategy> all_strategies = {scan_strategy::automatic, scan_strategy::three_launch,
                                                   scan_strategy::reduce_then_scan, scan_strategy::chained,
                                                   scan_strategy::decoupled_look_back};
const std::vector<block_scan_algorithm> all_algorithms = {
    block_scan_algorithm::automatic, block_scan_algorithm::kogge_stone_double_buffer,
    block_scan_algorithm::kogge_stone_read_sync_write, block_scan_algorithm::brent_kung,
    block_scan_algorithm::warp_of_warps};
const std::vector<scan_op> all_ops = {scan_op::plus,    scan_op::maximum, scan_op::minimum,
                                      scan_op::bit_and, scan_op::bit_or,  scan_op::bit_xor};

// Every value prints a distinct name and parses back to itself.
template <class E, class Parse>
void check_round_trip(const std::vector<E>& values, Parse parse) {
  std::vector<std::string> names;
  for (E v : values) {
    const std::string name = scankit::to_string(v);
    SCOPED_TRACE(name);
    EXPECT_FALSE(name.empty());
    EXPECT_NE(name, "?");
    for (const std::string& other : names) EXPECT_NE(name, other) << "two values share a name";
    names.push_back(name);
    EXPECT_EQ(parse(name), v);
  }
}

// An unknown name throws scankit::error naming the bad input and listing every known name.
template <class E, class Parse>
void check_unknown_name(const std::vector<E>& values, Parse parse, const std::string& bad) {
  SCOPED_TRACE("parsing '" + bad + "'");
  try {
    (void)parse(bad);
    ADD_FAILURE() << "no exception";
  } catch (const scankit::error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("'" + bad + "'"), std::string::npos) << message;
    for (E v : values) EXPECT_NE(message.find(scankit::to_string(v)), std::string::npos) << message;
  }
}

TEST(ScanOptions, StrategyNames) {
  check_round_trip(all_strategies, scankit::parse_scan_strategy);
  EXPECT_STREQ(scankit::to_string(scan_strategy::decoupled_look_back), "decoupled_look_back");
  EXPECT_STREQ(scankit::to_string(scan_strategy::three_launch), "three_launch");
  EXPECT_STREQ(scankit::to_string(scan_strategy::reduce_then_scan), "reduce_then_scan");
  EXPECT_STREQ(scankit::to_string(scan_strategy::chained), "chained");
}

TEST(ScanOptions, BlockAlgorithmNames) {
  check_round_trip(all_algorithms, scankit::parse_block_scan_algorithm);
  EXPECT_STREQ(scankit::to_string(block_scan_algorithm::warp_of_warps), "warp_of_warps");
  EXPECT_STREQ(scankit::to_string(block_scan_algorithm::brent_kung), "brent_kung");
}

TEST(ScanOptions, OperatorNames) {
  check_round_trip(all_ops, scankit::parse_scan_op);
  EXPECT_STREQ(scankit::to_string(scan_op::plus), "plus");
  EXPECT_STREQ(scankit::to_string(scan_op::bit_xor), "bit_xor");
}

TEST(ScanOptions, UnknownNamesThrowAndListTheKnownOnes) {
  for (const std::string bad : {"", "fastest", "Plus", "decoupled", " chained", "warp_of_warps "}) {
    check_unknown_name(all_strategies, scankit::parse_scan_strategy, bad);
    check_unknown_name(all_algorithms, scankit::parse_block_scan_algorithm, bad);
    check_unknown_name(all_ops, scankit::parse_scan_op, bad);
  }
}

TEST(ScanOptions, OutOfRangeEnumPrintsSomething) {
  EXPECT_NE(scankit::to_string(static_cast<scan_strategy>(99)), nullptr);
  EXPECT_NE(scankit::to_string(static_cast<block_scan_algorithm>(99)), nullptr);
  EXPECT_NE(scankit::to_string(static_cast<scan_op>(99)), nullptr);
}

TEST(ScanOptions, Defaults) {
  const scan_options options;
  EXPECT_EQ(options.strategy, scan_strategy::automatic);
  EXPECT_EQ(options.block_algorithm, block_scan_algorithm::automatic);
  EXPECT_EQ(options.items_per_thread, 0);
  EXPECT_FALSE(options.deterministic);
}

// ---------------------------------------------------------------------------------------------
// Workspace sizing.

TEST(WorkspaceBytes, LayoutRules) {
  using scankit::workspace;
  EXPECT_EQ(workspace::bytes_needed(0, 0), workspace::header_bytes);
  for (std::size_t slots : {0, 1, 31, 32, 33, 1000, 123457}) {
    for (std::size_t scratch : {0, 1, 255, 256, 257, 100000}) {
      const std::size_t bytes = workspace::bytes_needed(slots, scratch);
      SCOPED_TRACE("slots " + std::to_string(slots) + " scratch " + std::to_string(scratch));
      EXPECT_EQ(bytes % 256, 0u);
      EXPECT_GE(bytes, workspace::header_bytes + slots * sizeof(std::uint64_t) + scratch);
      // Monotonic in both arguments.
      EXPECT_LE(bytes, workspace::bytes_needed(slots + 1, scratch));
      EXPECT_LE(bytes, workspace::bytes_needed(slots, scratch + 1));
      EXPECT_LE(bytes, workspace::bytes_needed(slots + 100, scratch + 1000));
    }
  }
}

TEST(WorkspaceBytes, EmptyWorkspaceHoldsNothing) {
  scankit::workspace ws;
  EXPECT_EQ(ws.capacity_bytes(), 0u);
  ws.release();  // harmless without memory
  EXPECT_EQ(ws.capacity_bytes(), 0u);
  scankit::workspace moved(std::move(ws));
  EXPECT_EQ(moved.capacity_bytes(), 0u);
}

TEST(WorkspaceBytes, CallerMemoryReportsItsCapacity) {
  alignas(256) static unsigned char fake[4096];  // never touched: nothing is prepared here
  scankit::workspace ws(fake, sizeof(fake));
  EXPECT_EQ(ws.capacity_bytes(), sizeof(fake));
  scankit::workspace moved(std::move(ws));
  EXPECT_EQ(moved.capacity_bytes(), sizeof(fake));
}

// The tile of the precompiled default path: 256 threads x 16 KiB per tile (scan_tuning in
// scankit/device/policy/scan_policy.cuh), i.e. 16384 / sizeof(T) items for values up to 8 bytes.
template <class T>
constexpr std::int64_t default_tile() {
  return 16384 / static_cast<std::int64_t>(sizeof(T));
}

template <class T>
std::size_t bytes_for(std::int64_t n, scan_strategy s, int items_per_thread = 0) {
  scan_options options;
  options.strategy = s;
  options.items_per_thread = items_per_thread;
  return scankit::lab::scan_workspace_bytes(static_cast<const T*>(nullptr), n, options);
}

template <class T>
void check_workspace_bytes() {
  constexpr std::int64_t tile = default_tile<T>();
  for (scan_strategy s : all_strategies) {
    SCOPED_TRACE(scankit::to_string(s));
    // One tile or less: a single launch of one block, no workspace.
    for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{33}, tile - 1, tile}) {
      EXPECT_EQ(bytes_for<T>(n, s), 0u) << "n = " << n;
    }
    // More than one tile: some workspace, growing with n.
    std::size_t previous = 0;
    for (std::int64_t n : {tile + 1, 2 * tile, 7 * tile + 5, 100 * tile, std::int64_t{3'000'000},
                           std::int64_t{1} << 28, (std::int64_t{1} << 32) + 7}) {
      const std::size_t bytes = bytes_for<T>(n, s);
      EXPECT_GT(bytes, 0u) << "n = " << n;
      EXPECT_GE(bytes, previous) << "n = " << n;
      previous = bytes;
      const auto tiles = static_cast<std::size_t>((n + tile - 1) / tile);
      if (s == scan_strategy::three_launch || s == scan_strategy::reduce_then_scan) {
        // At least the tile totals.
        EXPECT_GE(bytes, scankit::workspace::bytes_needed(0, tiles * sizeof(T))) << "n = " << n;
      } else {
        // At least one state slot per tile.
        EXPECT_GE(bytes, scankit::workspace::bytes_needed(tiles, 0)) << "n = " << n;
      }
    }
  }
  // Negative counts are rejected.
  try {
    (void)bytes_for<T>(-5, scan_strategy::automatic);
    ADD_FAILURE() << "no exception for n = -5";
  } catch (const scankit::error& e) {
    EXPECT_NE(std::string(e.what()).find("n = -5"), std::string::npos) << e.what();
  }
}

TEST(WorkspaceBytes, PrecompiledInt8) { check_workspace_bytes<std::int8_t>(); }
TEST(WorkspaceBytes, PrecompiledUint16) { check_workspace_bytes<std::uint16_t>(); }
TEST(WorkspaceBytes, PrecompiledInt32) { check_workspace_bytes<std::int32_t>(); }
TEST(WorkspaceBytes, PrecompiledFloat) { check_workspace_bytes<float>(); }
TEST(WorkspaceBytes, PrecompiledUint64) { check_workspace_bytes<std::uint64_t>(); }
TEST(WorkspaceBytes, PrecompiledDouble) { check_workspace_bytes<double>(); }

TEST(WorkspaceBytes, AutomaticIsDecoupledLookBack) {
  for (std::int64_t n : {std::int64_t{5000}, std::int64_t{1} << 20, std::int64_t{123456789}}) {
    EXPECT_EQ(bytes_for<std::int32_t>(n, scan_strategy::automatic),
              bytes_for<std::int32_t>(n, scan_strategy::decoupled_look_back));
    EXPECT_EQ(bytes_for<double>(n, scan_strategy::automatic),
              bytes_for<double>(n, scan_strategy::decoupled_look_back));
  }
}

TEST(WorkspaceBytes, DeterministicFloatNeedsWorkspaceOnlyBeyondOneTile) {
  scan_options options;
  options.deterministic = true;
  for (scan_strategy s : all_strategies) {
    options.strategy = s;
    SCOPED_TRACE(scankit::to_string(s));
    EXPECT_EQ(scankit::lab::scan_workspace_bytes(static_cast<const float*>(nullptr), default_tile<float>(), options), 0u);
    EXPECT_GT(scankit::lab::scan_workspace_bytes(static_cast<const float*>(nullptr), std::int64_t{1} << 24, options), 0u);
  }
}

TEST(WorkspaceBytes, SmallerTilesNeedAtLeastAsMuch) {
  // int32 sums are precompiled with 1, 2, 4, 8 and 16 items per thread.
  const std::int64_t n = 5'000'000;
  for (scan_strategy s : all_strategies) {
    SCOPED_TRACE(scankit::to_string(s));
    std::size_t previous = bytes_for<std::int32_t>(n, s, 16);
    EXPECT_EQ(previous, bytes_for<std::int32_t>(n, s, 0)) << "16 is the tuned coarsening of int32";
    for (int k : {8, 4, 2, 1}) {
      const std::size_t bytes = bytes_for<std::int32_t>(n, s, k);
      EXPECT_GE(bytes, previous) << "items_per_thread " << k;
      previous = bytes;
    }
    // 256 threads x 1 item: one tile is 256 items.
    EXPECT_EQ(bytes_for<std::int32_t>(256, s, 1), 0u);
    EXPECT_GT(bytes_for<std::int32_t>(257, s, 1), 0u);
  }
}

// ---------------------------------------------------------------------------------------------
// Error types.

TEST(ScanErrors, CudaErrorNamesTheCallAndTheCode) {
  const scankit::cuda_error e(cudaErrorInvalidValue, "cudaMemcpy(a, b, c)");
  const std::string message = e.what();
  EXPECT_EQ(e.code(), cudaErrorInvalidValue);
  EXPECT_NE(message.find("cudaMemcpy(a, b, c)"), std::string::npos) << message;
  EXPECT_NE(message.find("cudaErrorInvalidValue"), std::string::npos) << message;
}

TEST(ScanErrors, CheckMacroThrowsCudaError) {
  EXPECT_NO_THROW(SCANKIT_CUDA_CHECK(cudaSuccess));
  try {
    SCANKIT_CUDA_CHECK(cudaErrorMemoryAllocation);
    ADD_FAILURE() << "no exception";
  } catch (const scankit::cuda_error& e) {
    EXPECT_EQ(e.code(), cudaErrorMemoryAllocation);
    EXPECT_NE(std::string(e.what()).find("cudaErrorMemoryAllocation"), std::string::npos) << e.what();
  }
}

TEST(ScanErrors, ArgumentErrorIsAnInvalidArgument) {
  const scankit::error e("bad");
  const std::invalid_argument& base = e;
  EXPECT_STREQ(base.what(), "bad");
}

TEST(ScanErrors, DeviceQueryDoesNotThrow) {
  // True or false depending on the machine; it must simply answer.
  EXPECT_NO_THROW((void)scankit::cuda_device_available());
}

}  // namespace
