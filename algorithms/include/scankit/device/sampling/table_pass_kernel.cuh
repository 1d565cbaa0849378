// The one-pass build of a sampling table: each block takes a ticket, converts its tile of weights
// to units at the unit exponent the estimate chose (table_scale.cuh), gets the units of all tiles
// before it from the engine's single-pass protocol (tile_prefix_op, decoupled look-back) and writes
// the tile's CDF, codes and guide entries. The weights are read once: 4 bytes read and 10.5 written
// per bin (8 of CDF, 2 of code, half of guide).
//
// Integer sums need no fixed association, so the plain decoupled look-back gives the same bits as
// any other order. The saturating sum makes an overflow visible in the total (table_units_max).
// Memory order: nothing but the tile values travels between blocks, each in the word that carries
// its status (tile_state.cuh), so no fence is needed.
#pragma once

#include <cstdint>

#include "scankit/device/sampling/table_tile.cuh"
#include "scankit/device/tile/tile_prefix_op.cuh"
#include "scankit/device/tuning/tuning_sampling.cuh"
#include "scankit/device/util/l2_prefetch.cuh"

namespace scankit::device_detail::sampling {

// Blocks per SM to fit, and how far ahead of its own tile a block asks L2 for weights
// (l2_prefetch.cuh): tuning_sampling.cuh.
constexpr int table_pass_min_blocks = tuning::sampling_tuning_table::table_pass::min_blocks_per_sm;
constexpr long long table_prefetch_bytes_ahead = tuning::sampling_tuning_table::table_pass::prefetch_bytes_ahead;

template <class T>
__global__ void __launch_bounds__(table_threads, table_pass_min_blocks) table_pass_kernel(const T* w, std::int64_t n, table_header* header,
                                                                    single_pass_context<std::uint64_t> pass,
                                                                    table_arrays a) {
  using prefix_op = tile_prefix_op<std::uint64_t, units_plus, look_back_shape<>, false>;
  __shared__ table_tile_storage s;
  __shared__ table_stage_storage stage;
  __shared__ std::uint64_t tile_prefix;
  __shared__ tile_ticket ticket;
  // Every block reads the same mode (an earlier launch wrote it), so either all draw tickets or
  // none does, and a launch that runs nothing leaves the ticket word as it was.
  if (header->mode != static_cast<std::int32_t>(table_mode::fast)) return;
  if (threadIdx.x == 0) {
    ticket = pass.draw();
    // The weights of the tile drawn that far after this one: they wait in L2 when its block loads
    // them, so DRAM stays busy beyond the tiles that fit on the SMs.
    constexpr long long ahead = table_prefetch_bytes_ahead / (table_tile_items * sizeof(T));
    const std::int64_t later = (static_cast<std::int64_t>(ticket.tile) + ahead) * table_tile_items;
    if (ahead > 0 && later < n) {
      const std::int64_t items = n - later < table_tile_items ? n - later : table_tile_items;
      prefetch_l2(w + later, static_cast<std::size_t>(items) * sizeof(T));
    }
  }
  __syncthreads();
  const std::int64_t begin = static_cast<std::int64_t>(ticket.tile) * table_tile_items;
  const int unit_exponent = header->unit_exponent;
  table_tile<T> tile;
  tile.load(w, begin, n, unit_exponent, s, &stage);
  const int flags = (__syncthreads_or(tile.bad) ? flag_bad_weight : 0u) | (__syncthreads_or(tile.beyond) ? flag_beyond : 0u);
  if (threadIdx.x == 0 && flags != 0) atomicOr(&header->flags, static_cast<std::uint32_t>(flags));
  // Warp 0 looks back while the other warps turn their units into the tile's own CDF; it stages
  // its own part after the look-back. The hand-over barrier then covers both.
  const prefix_op prefix(pass, ticket, units_plus{});
  if (threadIdx.x == 0) prefix.publish_aggregate(tile.total);
  if (threadIdx.x < 32 && ticket.tile != 0) {
    const std::uint64_t before = prefix.look_back();
    if (threadIdx.x == 0) {
      prefix.publish_prefix(before, tile.total);
      tile_prefix = before;
    }
  }
  tile.stage_local(stage);
  __syncthreads();
  tile.write_out(begin, n, ticket.tile == 0 ? 0 : tile_prefix, header->shift, header->guide_capacity + 1, a, header,
                 stage);
}

}  // namespace scankit::device_detail::sampling
