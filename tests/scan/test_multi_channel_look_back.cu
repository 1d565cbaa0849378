// GPU tests of the multi-channel tile state and the per-channel look-back, the protocol under the
// one-sweep radix sort. A synthetic kernel stands in for a sort pass: each tile (id from the
// ticket) counts the digits of its items per channel, runs block_channel_look_back, and writes its
// exclusive per-channel prefixes to [tile][channel]; the host checks them against prefix sums of
// host histograms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "scankit/device/tile/channel_look_back.cuh"
#include "scankit/device/tile/multi_channel_tile_state.cuh"
#include "scankit/device/tile/tile_ticket.cuh"
#include "support/gpu_test.hpp"

namespace {

using namespace scankit::testing;
namespace dd = scankit::device_detail;

constexpr int block_threads = 256;
constexpr dd::look_back_backoff test_backoff{32, 1024};

struct channel_prefix_args {
  const std::uint16_t* digits;  // each < state.channels
  long long n;
  int tile_items;
  std::uint32_t tiles;
  dd::single_pass_header* header;
  dd::multi_channel_tile_state<std::uint32_t> state;  // its epoch is set per block
  std::size_t region_slots;                           // the whole slot allocation
  unsigned straggler_ns;  // about one tile in 16 waits this long before publishing: longer walks
  bool in_place;          // exclusive prefixes over the counts array itself
  std::uint32_t* exclusive_out;  // [tile][channel]
};

template <int Window>
__global__ void __launch_bounds__(block_threads) channel_prefix_kernel(channel_prefix_args args) {
  extern __shared__ std::uint32_t shared_words[];  // counts[channels], then exclusive[channels]
  __shared__ dd::tile_ticket ticket;
  const std::uint32_t channels = args.state.channels;
  std::uint32_t* counts = shared_words;
  std::uint32_t* exclusive = args.in_place ? counts : shared_words + channels;

  if (threadIdx.x == 0) ticket = dd::draw_tile_ticket(args.header, args.tiles);
  for (std::uint32_t c = threadIdx.x; c < channels; c += blockDim.x) counts[c] = 0;
  __syncthreads();
  const dd::tile_ticket drawn = ticket;
  const auto state = args.state.with_epoch(drawn.epoch);

  const long long begin = static_cast<long long>(drawn.tile) * args.tile_items;
  const long long end = begin + args.tile_items < args.n ? begin + args.tile_items : args.n;
  for (long long i = begin + threadIdx.x; i < end; i += blockDim.x) atomicAdd(&counts[args.digits[i]], 1u);
  if (threadIdx.x == 0 && args.straggler_ns > 0 && ((drawn.tile * 2654435761u) >> 28) == 0) {
    __nanosleep(args.straggler_ns);
  }
  __syncthreads();

  dd::block_channel_look_back<Window>(state, drawn.tile, counts, exclusive, test_backoff);
  if (threadIdx.x == 0) dd::finish_tile_states(args.header, drawn, args.tiles, args.state.slots, args.region_slots);
  for (std::uint32_t c = threadIdx.x; c < channels; c += blockDim.x) {
    args.exclusive_out[static_cast<std::size_t>(drawn.tile) * channels + c] = exclusive[c];
  }
}

// Digits in [0, channels): half uniform, half one hot digit (large counts beside small ones).
std::vector<std::uint16_t> random_digits(long long n, std::uint32_t channels, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint32_t> digit(0, channels - 1);
  const auto hot = static_cast<std::uint16_t>(digit(rng));
  std::vector<std::uint16_t> digits(static_cast<std::size_t>(n));
  for (auto& d : digits) d = (rng() & 1) != 0 ? hot : static_cast<std::uint16_t>(digit(rng));
  return digits;
}

// [tile][channel]: the channel's count over tiles 0 .. tile - 1.
std::vector<std::uint32_t> reference_exclusive_prefixes(const std::vector<std::uint16_t>& digits, std::uint32_t tiles,
                                                        std::uint32_t channels, int tile_items) {
  std::vector<std::uint32_t> prefixes(static_cast<std::size_t>(tiles) * channels);
  std::vector<std::uint32_t> running(channels, 0), histogram(channels);
  for (std::uint32_t t = 0; t < tiles; ++t) {
    std::fill(histogram.begin(), histogram.end(), 0u);
    const std::size_t begin = static_cast<std::size_t>(t) * tile_items;
    const std::size_t end = std::min(begin + tile_items, digits.size());
    for (std::size_t i = begin; i < end; ++i) ++histogram[digits[i]];
    for (std::uint32_t c = 0; c < channels; ++c) {
      prefixes[static_cast<std::size_t>(t) * channels + c] = running[c];
      running[c] += histogram[c];
    }
  }
  return prefixes;
}

::testing::AssertionResult equal_prefixes(const std::vector<std::uint32_t>& expected,
                                          const std::vector<std::uint32_t>& actual, std::uint32_t channels) {
  std::size_t mismatches = 0, first = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] != actual[i]) {
      if (mismatches == 0) first = i;
      ++mismatches;
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << mismatches << " of " << expected.size()
                                       << " prefixes differ; first at tile " << first / channels << ", channel "
                                       << first % channels << ": expected " << expected[first] << ", got "
                                       << actual[first];
}

struct launch_shape {
  long long n;
  std::uint32_t channels;
  int tile_items;
  unsigned straggler_ns = 0;
  bool in_place = false;
  int window = 1;  // predecessors read per look-back step: 1 or 6
};

std::string describe(const launch_shape& s) {
  return "n " + std::to_string(s.n) + ", channels " + std::to_string(s.channels) + ", tile " +
         std::to_string(s.tile_items) + (s.straggler_ns > 0 ? ", stragglers" : "") + (s.in_place ? ", in place" : "") +
         ", window " + std::to_string(s.window);
}

std::uint32_t tiles_for(const launch_shape& s) {
  return static_cast<std::uint32_t>((s.n + s.tile_items - 1) / s.tile_items);
}

// A ticket header and a slot region, allocated and zeroed once, reused by every launch.
class channel_state_rig {
 public:
  explicit channel_state_rig(std::size_t region_slots) : slots_(region_slots) {
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&header_), header_bytes));
    SCANKIT_CUDA_CHECK(cudaMemset(header_, 0, header_bytes));
    SCANKIT_CUDA_CHECK(cudaMemset(slots_.data(), 0, slots_.size() * sizeof(std::uint64_t)));
  }
  ~channel_state_rig() { (void)cudaFree(header_); }
  channel_state_rig(const channel_state_rig&) = delete;
  channel_state_rig& operator=(const channel_state_rig&) = delete;

  device_buffer<std::uint64_t>& slots() { return slots_; }

  dd::single_pass_header header() const {
    dd::single_pass_header h{};
    SCANKIT_CUDA_CHECK(cudaMemcpy(&h, header_, sizeof(h), cudaMemcpyDeviceToHost));
    return h;
  }
  void set_epoch(std::uint32_t epoch) {
    const dd::single_pass_header h{static_cast<unsigned long long>(epoch) << 32, 0u};
    SCANKIT_CUDA_CHECK(cudaMemcpy(header_, &h, sizeof(h), cudaMemcpyHostToDevice));
  }

  // One launch over fresh random digits, checked against the host reference.
  ::testing::AssertionResult run(const launch_shape& s, std::uint64_t seed) {
    const std::uint32_t tiles = tiles_for(s);
    if (dd::multi_channel_state_slots(tiles, s.channels) > slots_.size()) {
      return ::testing::AssertionFailure() << "the rig's slot region is too small for " << describe(s);
    }
    const std::vector<std::uint16_t> digits = random_digits(s.n, s.channels, seed);
    device_buffer<std::uint16_t> d_digits(digits);
    device_buffer<std::uint32_t> d_out(static_cast<std::size_t>(tiles) * s.channels);
    SCANKIT_CUDA_CHECK(cudaMemset(d_out.data(), 0xAB, d_out.size() * sizeof(std::uint32_t)));

    channel_prefix_args args{};
    args.digits = d_digits.data();
    args.n = s.n;
    args.tile_items = s.tile_items;
    args.tiles = tiles;
    args.header = header_;
    args.state = dd::multi_channel_tile_state<std::uint32_t>{slots_.data(), s.channels, 0};
    args.region_slots = slots_.size();
    args.straggler_ns = s.straggler_ns;
    args.in_place = s.in_place;
    args.exclusive_out = d_out.data();
    const std::size_t shared_bytes = 2 * sizeof(std::uint32_t) * s.channels;
    if (s.window == 1) {
      channel_prefix_kernel<1><<<tiles, block_threads, shared_bytes>>>(args);
    } else {
      channel_prefix_kernel<6><<<tiles, block_threads, shared_bytes>>>(args);
    }
    SCANKIT_CUDA_CHECK(cudaGetLastError());
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());

    return equal_prefixes(reference_exclusive_prefixes(digits, tiles, s.channels, s.tile_items), d_out.download(),
                          s.channels);
  }

 private:
  static constexpr std::size_t header_bytes = (sizeof(dd::single_pass_header) + 255) / 256 * 256;
  dd::single_pass_header* header_ = nullptr;
  device_buffer<std::uint64_t> slots_;
};

constexpr std::uint32_t epoch_of(const dd::single_pass_header& h) { return static_cast<std::uint32_t>(h.ticket >> 32); }
constexpr std::uint32_t drawn_of(const dd::single_pass_header& h) { return static_cast<std::uint32_t>(h.ticket); }

// Tiles of 1024 and 3840 items, look-back windows of 1 and 6; 2, 16, 256 channels, a non-power of two (100) and more channels
// than threads (512 on 256 threads); 1, 2, 33 and thousands of tiles.
TEST(MultiChannelLookBack, MatchesHostReference) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  constexpr long long large = 1ll << 22;
  channel_state_rig rig(dd::multi_channel_state_slots(large / 1024, 512));
  std::uint64_t run_seed = seed;
  for (int tile_items : {1024, 3840}) {
    const std::vector<long long> sizes = {1,
                                          tile_items,
                                          tile_items + 1,
                                          2ll * tile_items,
                                          33ll * tile_items - 7,
                                          large};
    for (std::uint32_t channels : {2u, 16u, 100u, 256u, 512u}) {
      for (long long n : sizes) {
        for (unsigned straggler_ns : {0u, 20000u}) {
          for (int window : {1, 6}) {
            const launch_shape shape{n, channels, tile_items, straggler_ns, false, window};
            if (straggler_ns > 0 && tiles_for(shape) < 33) continue;
            SCOPED_TRACE(describe(shape));
            EXPECT_TRUE(rig.run(shape, run_seed++));
          }
        }
      }
    }
  }
}

// Counts and exclusive prefixes in one shared array.
TEST(MultiChannelLookBack, InPlace) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  channel_state_rig rig(dd::multi_channel_state_slots(1100, 512));
  std::uint64_t run_seed = seed;
  for (std::uint32_t channels : {16u, 100u, 512u}) {
    for (long long n : {1ll, 1025ll, 1ll << 20}) {
      const launch_shape shape{n, channels, 1024, 5000, true};
      SCOPED_TRACE(describe(shape));
      EXPECT_TRUE(rig.run(shape, run_seed++));
    }
  }
}

// 200 launches of random shapes over the same slots, never cleared: the epoch drawn with the
// ticket must make every slot of an earlier launch read as unpublished.
TEST(MultiChannelLookBack, ManyLaunchesReuseUnclearedState) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  constexpr long long max_n = 1ll << 20;
  constexpr std::uint32_t max_channels = 600;
  constexpr int launches = 200;
  channel_state_rig rig(dd::multi_channel_state_slots(max_n / 1024, max_channels));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> log_n(0.0, std::log(static_cast<double>(max_n)));
  std::uniform_int_distribution<std::uint32_t> channels(1, max_channels);
  for (int launch = 0; launch < launches; ++launch) {
    launch_shape shape{};
    shape.n = std::clamp<long long>(static_cast<long long>(std::exp(log_n(rng))), 1, max_n);
    shape.channels = channels(rng);
    shape.tile_items = (rng() & 1) != 0 ? 1024 : 3840;
    shape.straggler_ns = (rng() & 1) != 0 ? 5000u : 0u;
    shape.in_place = (rng() & 1) != 0;
    shape.window = (rng() & 1) != 0 ? 6 : 1;
    SCOPED_TRACE("launch " + std::to_string(launch) + ": " + describe(shape));
    ASSERT_TRUE(rig.run(shape, rng()));
  }
  const dd::single_pass_header h = rig.header();
  EXPECT_EQ(epoch_of(h), static_cast<std::uint32_t>(launches));
  EXPECT_EQ(drawn_of(h), 0u);
}

// Five launches through the epoch wrap (epochs max_epoch - 2 .. 1). The slots start out holding
// prefixes tagged with epochs 0 and 1, as if written one wrap ago: the launch holding max_epoch
// must clear them, or the launches after it would read them as published.
TEST(MultiChannelLookBack, EpochWrap) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  constexpr int tile_items = 1024;
  constexpr long long max_tiles = 64;
  channel_state_rig rig(dd::multi_channel_state_slots(max_tiles, 256));
  std::vector<std::uint64_t> stale(rig.slots().size());
  for (std::size_t i = 0; i < stale.size(); ++i) {
    const std::uint64_t epoch = i % 2;
    stale[i] = (std::uint64_t{0x12345} << 32) | (epoch << 2) | dd::flag_prefix;
  }
  rig.slots().upload(stale);
  rig.set_epoch(dd::max_epoch - 2);

  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<long long> size(tile_items + 1, max_tiles * tile_items);
  const std::uint32_t channel_choices[] = {2, 16, 100, 256};
  for (int launch = 0; launch < 5; ++launch) {
    const std::uint32_t epoch = (dd::max_epoch - 2 + static_cast<std::uint32_t>(launch)) & dd::max_epoch;
    const launch_shape shape{size(rng), channel_choices[rng() % 4], tile_items, (rng() & 1) != 0 ? 5000u : 0u,
                             launch % 2 != 0};
    SCOPED_TRACE("epoch " + std::to_string(epoch) + ": " + describe(shape));
    ASSERT_EQ(epoch_of(rig.header()), epoch);
    ASSERT_TRUE(rig.run(shape, rng()));
    if (epoch == dd::max_epoch) {
      const std::vector<std::uint64_t> slots = rig.slots().download();
      std::size_t nonzero = 0;
      for (std::uint64_t w : slots) nonzero += w != 0;
      EXPECT_EQ(nonzero, 0u) << "the wrap launch left slots uncleared";
      EXPECT_EQ(rig.header().finished, 0u);
    }
  }
  EXPECT_EQ(epoch_of(rig.header()), 2u);
  EXPECT_EQ(drawn_of(rig.header()), 0u);
}

}  // namespace
