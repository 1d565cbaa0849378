// scankit::workspace in use: one workspace reused across many calls of varying sizes, strategies
// and value types (the epochs keep stale tile states from earlier launches out), caller-allocated
// memory (including memory full of bytes that look like statuses), too-small caller memory,
// ws == nullptr, release and move, and non-default streams.
#include <memory>

#include "scan_test_util.cuh"

namespace scankit::testing {
namespace {

// One checked scan through the precompiled API on `stream` (synchronised before checking).
template <class T>
void checked_precompiled_scan(scan_kind kind, std::int64_t n, const scan_options& options, workspace* ws,
                              std::mt19937_64& rng, cudaStream_t stream = nullptr) {
  SCOPED_TRACE(std::string(to_string(kind)) + " n = " + std::to_string(n) + " " +
               describe(strategy_case{options.strategy, options.deterministic}) + " sizeof(T) = " +
               std::to_string(sizeof(T)));
  const std::vector<T> host_in = random_values<T>(static_cast<std::size_t>(n), rng());
  const T init = static_cast<T>(5);
  device_buffer<T> d_in(host_in);
  const std::vector<T> expected = thrust_scan(d_in.data(), n, kind, init, thrust::plus<T>());
  device_buffer<T> d_out(static_cast<std::size_t>(n) + guard_items);
  d_out.poison();
  sync_device();  // the poisoning runs on the legacy stream, which a non-blocking `stream` ignores
  precompiled_scan<T>(kind, d_in.data(), d_out.data(), n, init, scan_op::plus, stream, ws, options);
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::vector<T> out = d_out.download();
  EXPECT_TRUE(equal_ranges(expected.data(), out.data(), n));
  EXPECT_TRUE(still_poisoned(out, static_cast<std::size_t>(n), out.size()));
}

// The same for affine maps through the template API (split tile state, deterministic look-back).
void checked_affine_scan(scan_kind kind, std::int64_t n, const scan_options& options, workspace* ws,
                         std::mt19937_64& rng) {
  SCOPED_TRACE(std::string("affine32 ") + to_string(kind) + " n = " + std::to_string(n) + " " +
               describe(strategy_case{options.strategy, options.deterministic}));
  const std::vector<affine32> host_in = random_affine32(static_cast<std::size_t>(n), rng());
  const affine32 init{7u, 1u};
  const std::vector<affine32> expected = reference_scan(host_in.data(), n, kind, init, compose_affine32{});
  device_buffer<affine32> d_in(host_in);
  device_buffer<affine32> d_out(static_cast<std::size_t>(n) + guard_items);
  d_out.poison();
  device_scan<scankit::device::tuned>(kind, d_in.data(), d_out.data(), n, init, compose_affine32{}, nullptr, ws,
                                      options);
  sync_device();
  const std::vector<affine32> out = d_out.download();
  EXPECT_TRUE(equal_ranges(expected.data(), out.data(), n));
  EXPECT_TRUE(still_poisoned(out, static_cast<std::size_t>(n), out.size()));
}

scan_options random_options(std::mt19937_64& rng) {
  scan_options options;
  const int pick = static_cast<int>(rng() % 6);
  if (pick < 5) {
    options = options_for(all_strategy_cases[pick]);
  }  // else automatic
  return options;
}

TEST(ScanWorkspace, ReusedAcrossFiftyCalls) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  workspace ws;
  for (int call = 0; call < 50; ++call) {
    SCOPED_TRACE("call " + std::to_string(call));
    const std::int64_t n = log_uniform_size(rng, 2'000'000);
    const scan_kind kind = rng() % 2 == 0 ? scan_kind::inclusive : scan_kind::exclusive;
    checked_precompiled_scan<std::int32_t>(kind, n, random_options(rng), &ws, rng);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(ScanWorkspace, SharedAcrossValueTypesAndShapes) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  workspace ws;
  for (int call = 0; call < 60; ++call) {
    SCOPED_TRACE("call " + std::to_string(call));
    const std::int64_t n = log_uniform_size(rng, 1'500'000);
    const scan_kind kind = rng() % 2 == 0 ? scan_kind::inclusive : scan_kind::exclusive;
    scan_options options = random_options(rng);
    switch (call % 6) {
      case 0: checked_precompiled_scan<std::int32_t>(kind, n, options, &ws, rng); break;
      case 1: checked_precompiled_scan<double>(kind, n, options, &ws, rng); break;  // split state
      case 2: checked_precompiled_scan<std::uint8_t>(kind, n, options, &ws, rng); break;
      case 3: checked_affine_scan(kind, n, options, &ws, rng); break;
      case 4:
        options.items_per_thread = 1;  // many small tiles: a large state region
        checked_precompiled_scan<float>(kind, n, options, &ws, rng);
        break;
      default: checked_precompiled_scan<std::uint64_t>(kind, n, options, &ws, rng); break;
    }
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(ScanWorkspace, NullWorkspaceEveryStrategy) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  for (strategy_case strategy : all_strategy_cases) {
    for (std::int64_t n : {std::int64_t{1}, std::int64_t{4097}, std::int64_t{1'234'567}}) {
      checked_precompiled_scan<std::int32_t>(scan_kind::inclusive, n, options_for(strategy), nullptr, rng);
      checked_precompiled_scan<double>(scan_kind::exclusive, n, options_for(strategy), nullptr, rng);
    }
  }
}

// Caller memory sized by scan_workspace_bytes, pre-filled with words whose low half reads as
// "epoch 1, inclusive prefix" (and a ticket counter of garbage): the workspace must clear them.
TEST(ScanWorkspace, CallerAllocatedExactSize) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const std::int64_t n = 3'000'017;
  for (strategy_case strategy : all_strategy_cases) {
    for (bool use_double : {false, true}) {
      SCOPED_TRACE(describe(strategy) + (use_double ? " double" : " int32"));
      const scan_options options = options_for(strategy);
      const std::size_t bytes = use_double
                                    ? precompiled_workspace_bytes<double>(n, options)
                                    : precompiled_workspace_bytes<std::int32_t>(n, options);
      ASSERT_GT(bytes, 0u);
      device_buffer<std::uint64_t> memory((bytes + 7) / 8);
      const std::vector<std::uint64_t> garbage(memory.size(), 0x0000000600000006ull);  // (1 << 2) | flag_prefix
      memory.upload(garbage);
      workspace ws(memory.data(), bytes);
      EXPECT_EQ(ws.capacity_bytes(), bytes);
      for (int r = 0; r < 3; ++r) {  // later calls run in later epochs of the same memory
        if (use_double) {
          checked_precompiled_scan<double>(r % 2 == 0 ? scan_kind::inclusive : scan_kind::exclusive, n, options, &ws,
                                           rng);
        } else {
          checked_precompiled_scan<std::int32_t>(r % 2 == 0 ? scan_kind::inclusive : scan_kind::exclusive, n, options,
                                                 &ws, rng);
        }
      }
      // Smaller calls fit in the same memory.
      if (use_double) {
        checked_precompiled_scan<double>(scan_kind::inclusive, n / 3, options, &ws, rng);
      } else {
        checked_precompiled_scan<std::int32_t>(scan_kind::inclusive, n / 3, options, &ws, rng);
      }
      EXPECT_EQ(ws.capacity_bytes(), bytes) << "a caller's workspace never grows";
    }
  }
}

TEST(ScanWorkspace, CallerAllocatedTooSmallThrowsBeforeLaunching) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = 1'000'003;
  std::vector<std::int32_t> host_in(static_cast<std::size_t>(n), 1);
  device_buffer<std::int32_t> d_in(host_in);
  device_buffer<std::int32_t> d_out(static_cast<std::size_t>(n));
  for (strategy_case strategy : all_strategy_cases) {
    SCOPED_TRACE(describe(strategy));
    const scan_options options = options_for(strategy);
    const std::size_t bytes = precompiled_workspace_bytes<std::int32_t>(n, options);
    ASSERT_GT(bytes, 256u);
    device_buffer<unsigned char> memory(bytes);
    for (std::size_t short_bytes : {bytes - 1, bytes - 256, std::size_t{0}}) {
      SCOPED_TRACE("caller bytes " + std::to_string(short_bytes) + " of " + std::to_string(bytes));
      workspace ws(short_bytes == 0 ? nullptr : memory.data(), short_bytes);
      d_out.poison();
      EXPECT_THROW(precompiled_scan(scan_kind::inclusive, d_in.data(), d_out.data(), n, 0, scan_op::plus, nullptr, &ws,
                                    options),
                   scankit::error);
      sync_device();
      const auto out = d_out.download();
      EXPECT_TRUE(still_poisoned(out, 0, out.size())) << "a rejected call wrote output";
    }
    // Memory that fits n does not fit a larger call either.
    workspace ws(memory.data(), bytes);
    device_buffer<std::int32_t> big_in(static_cast<std::size_t>(4 * n));
    device_buffer<std::int32_t> big_out(static_cast<std::size_t>(4 * n));
    EXPECT_THROW(precompiled_scan(scan_kind::inclusive, big_in.data(), big_out.data(), 4 * n, 0, scan_op::plus, nullptr,
                                  &ws, options),
                 scankit::error);
  }
}

// Inputs of one tile or less need no workspace at all: an empty caller workspace is enough.
TEST(ScanWorkspace, OneTileNeedsNoWorkspace) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const std::int64_t tile = precompiled_tile_items<std::int32_t>(0);
  for (strategy_case strategy : all_strategy_cases) {
    EXPECT_EQ(precompiled_workspace_bytes<std::int32_t>(tile, options_for(strategy)), 0u);
    workspace empty(nullptr, 0);
    for (std::int64_t n : {std::int64_t{1}, std::int64_t{33}, tile}) {
      checked_precompiled_scan<std::int32_t>(scan_kind::exclusive, n, options_for(strategy), &empty, rng);
    }
    EXPECT_EQ(empty.capacity_bytes(), 0u);
  }
}

TEST(ScanWorkspace, ReleaseAndMove) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const std::int64_t n = 2'000'003;
  workspace ws;
  checked_precompiled_scan<std::int32_t>(scan_kind::inclusive, n, {}, &ws, rng);
  EXPECT_GT(ws.capacity_bytes(), 0u);
  ws.release();
  EXPECT_EQ(ws.capacity_bytes(), 0u);
  checked_precompiled_scan<std::int32_t>(scan_kind::inclusive, n, {}, &ws, rng);  // grows again

  workspace moved(std::move(ws));
  EXPECT_GT(moved.capacity_bytes(), 0u);
  checked_precompiled_scan<std::int32_t>(scan_kind::exclusive, n, {}, &moved, rng);

  workspace assigned;
  checked_precompiled_scan<double>(scan_kind::inclusive, n / 2, {}, &assigned, rng);
  assigned = std::move(moved);  // frees assigned's memory, takes moved's
  checked_precompiled_scan<std::int32_t>(scan_kind::inclusive, n, {}, &assigned, rng);
  checked_precompiled_scan<double>(scan_kind::exclusive, n, {}, &assigned, rng);
}

TEST(ScanWorkspace, NonDefaultStream) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  cudaStream_t stream = nullptr;
  SCANKIT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  {
    workspace ws;
    for (int call = 0; call < 20; ++call) {
      const std::int64_t n = log_uniform_size(rng, 2'000'000);
      checked_precompiled_scan<std::int32_t>(call % 2 == 0 ? scan_kind::inclusive : scan_kind::exclusive, n,
                                             random_options(rng), &ws, rng, stream);
      checked_precompiled_scan<float>(scan_kind::inclusive, n, random_options(rng), nullptr, rng, stream);
    }
  }
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
  SCANKIT_CUDA_CHECK(cudaStreamDestroy(stream));
}

// Two streams, each with its own workspace, with scans in flight on both at once.
TEST(ScanWorkspace, TwoStreamsTwoWorkspacesConcurrently) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  constexpr int rounds = 10;
  cudaStream_t streams[2] = {nullptr, nullptr};
  for (auto& s : streams) SCANKIT_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  {
    workspace ws[2];
    for (int round = 0; round < rounds; ++round) {
      std::vector<std::int32_t> host[2];
      std::vector<std::int32_t> expected[2];
      std::unique_ptr<device_buffer<std::int32_t>> d_in[2], d_out[2];
      for (int s = 0; s < 2; ++s) {
        const std::int64_t n = log_uniform_size(rng, 3'000'000);
        host[s] = random_values<std::int32_t>(static_cast<std::size_t>(n), rng());
        d_in[s] = std::make_unique<device_buffer<std::int32_t>>(host[s]);
        d_out[s] = std::make_unique<device_buffer<std::int32_t>>(static_cast<std::size_t>(n));
        d_out[s]->poison();
        expected[s] = thrust_scan(d_in[s]->data(), n, scan_kind::inclusive, 0, thrust::plus<std::int32_t>());
      }
      sync_device();
      for (int s = 0; s < 2; ++s) {  // both enqueued before either is waited for
        scan_options options;
        options.strategy = round % 2 == 0 ? scan_strategy::decoupled_look_back : scan_strategy::chained;
        precompiled_scan(scan_kind::inclusive, d_in[s]->data(), d_out[s]->data(),
                         static_cast<std::int64_t>(host[s].size()), 0, scan_op::plus, streams[s], &ws[s], options);
      }
      for (int s = 0; s < 2; ++s) {
        SCANKIT_CUDA_CHECK(cudaStreamSynchronize(streams[s]));
        SCOPED_TRACE("round " + std::to_string(round) + " stream " + std::to_string(s));
        EXPECT_TRUE(equal_vectors(expected[s], d_out[s]->download()));
      }
    }
  }
  for (auto& s : streams) SCANKIT_CUDA_CHECK(cudaStreamDestroy(s));
}

// ---------------------------------------------------------------------------------------------
// Caller memory of exactly the largest size query serves every call that query covers, in any
// order: whatever an earlier call laid out in it, a later call that the query says fits must run.
// The two calls need the memory differently:
//   int32, 2^26 items     many tiles: a large state region (8 bytes a tile), no scratch
//   affine64, 1M items    16-byte values (the split tile state): fewer tiles, but two payload
//                         arrays in the scratch region behind the state region
// The workspace must not keep the state region of the earlier int32 call when the affine64 call
// needs the room behind it for its payloads.

// A scan of n affine64 maps (non-commutative: operand order matters) through the template API,
// checked against a host loop.
void checked_affine64_scan(std::int64_t n, workspace* ws, std::mt19937_64& rng) {
  SCOPED_TRACE("affine64 inclusive n = " + std::to_string(n));
  const std::vector<affine64> host_in = random_affine64(static_cast<std::size_t>(n), rng());
  std::vector<affine64> expected(host_in.size());
  affine64 running = host_in[0];
  expected[0] = running;
  for (std::size_t i = 1; i < host_in.size(); ++i) {
    running = compose_affine64{}(running, host_in[i]);  // "running, then in[i]"
    expected[i] = running;
  }
  device_buffer<affine64> d_in(host_in);
  device_buffer<affine64> d_out(static_cast<std::size_t>(n) + guard_items);
  d_out.poison();
  scankit::device::inclusive_scan(d_in.data(), d_out.data(), n, compose_affine64{}, nullptr, ws);
  sync_device();
  const std::vector<affine64> out = d_out.download();
  EXPECT_TRUE(equal_ranges(expected.data(), out.data(), n));
  EXPECT_TRUE(still_poisoned(out, static_cast<std::size_t>(n), out.size()));
}

constexpr std::int64_t large_int32_n = std::int64_t{1} << 26;
constexpr std::int64_t affine64_n = 1'000'000;

// max(scan_workspace_bytes of the int32 call, scan_workspace_bytes of the affine64 call).
std::size_t int32_and_affine64_bytes() {
  const std::size_t int32_bytes = scankit::scan_workspace_bytes(static_cast<const std::int32_t*>(nullptr), large_int32_n);
  const std::size_t affine_bytes = scankit::device::scan_workspace_bytes<affine64, compose_affine64>(affine64_n);
  EXPECT_GT(int32_bytes, 0u);
  EXPECT_GT(affine_bytes, 0u);
  return int32_bytes > affine_bytes ? int32_bytes : affine_bytes;
}

// The larger int32 call first, then the affine64 one (which today's workspace rejects: it keeps
// the int32 call's state region and asks for the payloads beyond it).
TEST(ScanWorkspace, CallerMemoryOfLargestQueryServesLargeInt32ThenAffine64) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const std::size_t bytes = int32_and_affine64_bytes();
  device_buffer<std::uint64_t> memory((bytes + 7) / 8);
  memory.upload(std::vector<std::uint64_t>(memory.size(), 0x0000000600000006ull));  // statuses of "epoch 1"
  workspace ws(memory.data(), bytes);
  checked_precompiled_scan<std::int32_t>(scan_kind::inclusive, large_int32_n, {}, &ws, rng);
  checked_affine64_scan(affine64_n, &ws, rng);
  checked_precompiled_scan<std::int32_t>(scan_kind::exclusive, large_int32_n, {}, &ws, rng);
  checked_affine64_scan(affine64_n, &ws, rng);
  EXPECT_EQ(ws.capacity_bytes(), bytes) << "a caller's workspace never grows";
}

// The other order: affine64, then the larger int32 call, then affine64 again (the last call is
// the one today's workspace rejects).
TEST(ScanWorkspace, CallerMemoryOfLargestQueryServesAffine64ThenLargeInt32) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const std::size_t bytes = int32_and_affine64_bytes();
  device_buffer<std::uint64_t> memory((bytes + 7) / 8);
  memory.upload(std::vector<std::uint64_t>(memory.size(), 0x0000000600000006ull));
  workspace ws(memory.data(), bytes);
  checked_affine64_scan(affine64_n, &ws, rng);
  checked_precompiled_scan<std::int32_t>(scan_kind::inclusive, large_int32_n, {}, &ws, rng);
  checked_affine64_scan(affine64_n, &ws, rng);
  EXPECT_EQ(ws.capacity_bytes(), bytes) << "a caller's workspace never grows";
}

}  // namespace
}  // namespace scankit::testing

namespace scankit::testing {
namespace {

// Sets the launch epoch that the next single-pass launch on `ws` draws (the header's ticket word).
void set_next_epoch(workspace& ws, std::uint32_t epoch) {
  const workspace_view view = ws.prepare(0, 0, nullptr);  // the current layout, unchanged
  device_detail::single_pass_header header{};
  header.ticket = static_cast<unsigned long long>(epoch) << 32;
  SCANKIT_CUDA_CHECK(cudaMemcpy(view.header, &header, sizeof(header), cudaMemcpyHostToDevice));
}

// Epochs wrap after 2^30 launches. Slots written by a large launch in epoch 0 would read as
// published in the first launch after the wrap (epoch 0 again) if the wrap launch did not clear
// the state region: the large launch after the wrap would then pick up stale prefixes.
TEST(ScanWorkspace, EpochWrapClearsStaleStates) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const std::int64_t large = 3'000'017, small = 200'003;
  for (bool use_double : {false, true}) {
    SCOPED_TRACE(use_double ? "double" : "int32");
    workspace ws;
    const auto run = [&](std::int64_t n) {
      if (use_double) {
        checked_precompiled_scan<double>(scan_kind::inclusive, n, scan_options{}, &ws, rng);
      } else {
        checked_precompiled_scan<std::int32_t>(scan_kind::inclusive, n, scan_options{}, &ws, rng);
      }
    };
    run(large);  // lays the workspace out and runs in epoch 0: every slot it used carries epoch 0
    set_next_epoch(ws, device_detail::max_epoch - 1);
    run(small);  // epoch max - 1
    run(small);  // epoch max: the wrap launch clears the region
    run(large);  // epoch 0 again: must not see the first large launch's states
    run(small);
    run(large);
  }
}

}  // namespace
}  // namespace scankit::testing
