// Argument checking of the precompiled compaction API (g++, no GPU needed): every bad call throws
// scankit::error naming the argument before anything is enqueued, so these run on machines
// without a CUDA device (nothing here may reach the CUDA runtime).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "scankit/compact.hpp"

namespace {

using scankit::compact_options;
using scankit::keep_in_range;

// Fake device addresses: never dereferenced, the checks reject the calls first.
template <class T>
T* at(std::uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

const auto in = at<std::uint32_t>(0x100000);
const auto out = at<std::uint32_t>(0x200000);
const auto other = at<std::uint32_t>(0x300000);
const auto count = at<std::int64_t>(0x400000);
const keep_in_range<std::uint32_t> pred{0, 10};

template <class F>
void expect_error(F&& call, const std::string& mentions) {
  try {
    call();
    ADD_FAILURE() << "no scankit::error thrown (expected one mentioning '" << mentions << "')";
  } catch (const scankit::error& e) {
    EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception: " << e.what();
  }
}

TEST(CompactArguments, NegativeCount) {
  expect_error([] { scankit::select_if(in, out, count, -1, pred); }, "negative");
  expect_error([] { scankit::partition_if(in, out, count, -5, pred); }, "negative");
  expect_error([] { scankit::unique(in, out, count, -1); }, "negative");
  expect_error([] { (void)scankit::select_if_count_host(in, out, -1, pred); }, "negative");
}

TEST(CompactArguments, NullPointers) {
  expect_error([] { scankit::select_if(static_cast<const std::uint32_t*>(nullptr), out, count, 10, pred); }, "in is null");
  expect_error([] { scankit::select_if(in, static_cast<std::uint32_t*>(nullptr), count, 10, pred); }, "out is null");
  expect_error([] { scankit::select_if(in, out, nullptr, 10, pred); }, "d_count is null");
  expect_error([] { scankit::select_if(in, out, nullptr, 0, pred); }, "d_count is null");  // n == 0 writes 0 there
  expect_error(
      [] { scankit::select_flagged(in, static_cast<const std::uint8_t*>(nullptr), out, count, 10); }, "flags is null");
  expect_error(
      [] {
        scankit::select_by_stencil(in, static_cast<const float*>(nullptr), out, count, 10, keep_in_range<float>{0, 1});
      },
      "stencil is null");
  expect_error([] { scankit::partition_if(in, out, static_cast<std::uint32_t*>(nullptr), count, 10, pred); },
               "out_rejected is null");
  expect_error(
      [] {
        scankit::unique_by_key(in, static_cast<const float*>(nullptr), out, at<float>(0x500000), count, 10);
      },
      "values_in is null");
  expect_error([] { (void)scankit::unique_count_host(static_cast<const std::uint32_t*>(nullptr), out, 3); },
               "in is null");
}

TEST(CompactArguments, PartialOverlapRejected) {
  // out = in + k items: partial overlap (out == in, in place, is allowed for select and unique).
  expect_error([] { scankit::select_if(in, const_cast<std::uint32_t*>(in) + 1, count, 100, pred); },
               "in and out overlap partially");
  expect_error([] { scankit::unique(in, const_cast<std::uint32_t*>(in) + 3, count, 100); }, "overlap partially");
  expect_error(
      [] { scankit::select_flagged(at<double>(0x100000), at<const bool>(0x700000), at<double>(0x100008), count, 100); },
      "overlap partially");
}

TEST(CompactArguments, OutputsMustNotCoverFlagsOrStencil) {
  expect_error(
      [] { scankit::select_flagged(in, at<std::uint8_t>(0x200000 + 8), out, count, 100); }, "flags and out overlap");
  expect_error(
      [] {
        scankit::select_by_stencil(in, at<double>(0x200000), out, count, 100, keep_in_range<double>{0, 1});
      },
      "stencil and out overlap");
}

TEST(CompactArguments, PartitionNeverInPlace) {
  expect_error([] { scankit::partition_if(in, const_cast<std::uint32_t*>(in), count, 100, pred); },
               "in and out overlap");
  expect_error([] { scankit::partition_if(in, out, out + 50, count, 100, pred); },
               "out_selected and out_rejected overlap");
  expect_error([] { scankit::partition_if(in, const_cast<std::uint32_t*>(in) + 99, other, count, 100, pred); },
               "in and out_selected overlap");
  expect_error([] { (void)scankit::partition_if_count_host(in, const_cast<std::uint32_t*>(in), 100, pred); },
               "in and out overlap");
}

TEST(CompactArguments, CountInsideAnArray) {
  expect_error([] { scankit::select_if(in, out, at<std::int64_t>(0x200000 + 16), 100, pred); },
               "d_count and out overlap");
  expect_error([] { scankit::unique(in, out, at<std::int64_t>(0x100000), 100); }, "d_count and in overlap");
}

TEST(CompactArguments, UniqueByKeyOverlaps) {
  const auto values = at<float>(0x500000);
  const auto values_out = at<float>(0x600000);
  expect_error([] { scankit::unique_by_key(in, at<float>(0x500000), out, at<float>(0x500000 + 4), count, 100); },
               "values_in and values_out overlap partially");
  expect_error([&] { scankit::unique_by_key(in, values, out, at<float>(0x200000), count, 100); },
               "keys_out and values_out overlap");
  expect_error([&] { scankit::unique_by_key(in, values, at<std::uint32_t>(0x500000), values_out, count, 100); },
               "keys_out and values_in overlap");
}

TEST(CompactArguments, BadStrategy) {
  compact_options o;
  o.strategy = static_cast<scankit::compact_strategy>(42);
  expect_error([&] { scankit::select_if(in, out, count, 10, pred, nullptr, nullptr, o); }, "options.strategy");
}

TEST(CompactArguments, WorkspaceSizes) {
  EXPECT_EQ(scankit::compact_workspace_bytes(0, 4), 0u);
  EXPECT_EQ(scankit::compact_workspace_bytes(4096, 4), 0u);  // one tile: no workspace
  const std::size_t narrow = scankit::compact_workspace_bytes(std::int64_t{1} << 28, 4);
  compact_options wide;
  wide.force_64bit_offsets = true;
  const std::size_t wider = scankit::compact_workspace_bytes(std::int64_t{1} << 28, 4, 0, wide);
  // Two 8-byte slots per tile of 8192 4-byte items (32 KiB): the single pass always uses the
  // 128-bit packed state, so forcing 64-bit offsets changes nothing here.
  EXPECT_GT(narrow, std::size_t{32768} * 16);
  EXPECT_EQ(wider, narrow);
  compact_options three;
  three.strategy = scankit::compact_strategy::three_step;
  EXPECT_GT(scankit::compact_workspace_bytes(1000, 4, 0, three), 4000u);
  expect_error([] { (void)scankit::compact_workspace_bytes(-1, 4); }, "negative");
}

}  // namespace
