// One tile of a sampling table: its weights in units (table_fixed_point.hpp), their sums, and the
// CDF, codes and guide entries it writes once its prefix is known. The one-pass build
// (table_pass_kernel.cuh) and the exact path (table_exact.cuh) both work tile by tile with these.
//
// A tile is 4096 weights, 16 consecutive ones per thread (four 16-byte loads): one sum per thread
// and one block scan, so the integer work per weight stays small. The CDF and the codes go out
// through shared memory, so that every warp stores whole contiguous lines (stores of partial
// sectors straight from registers cost several times their bytes: docs/tuning.md). Units are
// integers, so the order of the sums does not matter.
#pragma once

#include <cstdint>

#include "scankit/detail/table_fixed_point.hpp"
#include "scankit/device/sampling/table_header.cuh"
#include "scankit/device/sampling/tile_cdf.cuh"  // load_items
#include "scankit/device/warp/warp_scan.cuh"

namespace scankit::device_detail::sampling {

constexpr int table_threads = 256;
constexpr int table_items = 16;  // consecutive items per thread
constexpr int table_tile_items = table_threads * table_items;
constexpr int table_warps = table_threads / 32;

using units_plus = scankit::detail::saturating_plus;

// Where a table's arrays live.
struct table_arrays {
  std::uint64_t* cdf;
  std::uint16_t* codes;
  std::uint32_t* guide;   // guide_capacity + 2 entries
  std::int32_t* covers;   // per guide piece: the wide bin owning its first entry, or -1
  std::int32_t* starts;   // per guide piece: the wide bin starting inside it, or -1
};

// Records a wide bin (owning guide entries first .. last, more than one piece) in the piece slots:
// covers[p] for each piece whose first entry it owns, starts[p] for the piece where it begins
// when that is not at a piece boundary. Wide bins own disjoint ranges longer than a piece, so a
// piece meets at most two of them: the one covering its start and one starting inside it.
__device__ __forceinline__ void record_wide_bin(std::int64_t first, std::int64_t last, std::int32_t bin,
                                                std::int32_t* covers, std::int32_t* starts) {
  if (first % guide_piece != 0) starts[first / guide_piece] = bin;
  for (std::int64_t p = (first + guide_piece - 1) / guide_piece; p * guide_piece <= last; ++p) covers[p] = bin;
}

// Bin i of n, whose predecessors end in cell `lo` (-1 for bin 0) and which ends in cell `top`: the
// guide entries it owns, lo + 1 .. top, so that guide[j] is the first bin whose end reaches cell j;
// the last bin also writes the sentinel n at top + 1, one past every cell a target can fall in.
// Entries past `last_entry` (the guide's end) are dropped: the build then finds the cells too small
// and rewrites the guide (table_settle.cuh).
__device__ __forceinline__ void write_guide_span(std::int64_t i, std::int64_t n, std::int64_t lo, std::int64_t top,
                                                 std::int64_t last_entry, const table_arrays& a) {
  const std::int64_t hi = top < last_entry ? top : last_entry;
  if (hi - lo > guide_piece) {
    record_wide_bin(lo + 1, hi, static_cast<std::int32_t>(i), a.covers, a.starts);
  } else {
    for (std::int64_t j = lo + 1; j <= hi; ++j) a.guide[j] = static_cast<std::uint32_t>(i);
  }
  if (i == n - 1) a.guide[top < last_entry ? top + 1 : last_entry] = static_cast<std::uint32_t>(n);
}

// The same for bin i ending at `cur` units after `prev`.
__device__ __forceinline__ void write_guide_entries(std::int64_t i, std::int64_t n, std::uint64_t prev,
                                                    std::uint64_t cur, int shift, std::int64_t last_entry,
                                                    const table_arrays& a) {
  write_guide_span(i, n, i == 0 ? -1 : guide_cell(prev, shift), guide_cell(cur, shift), last_entry, a);
}

struct table_tile_storage {
  std::uint64_t warp_sums[table_warps];
};

// The tile's CDF on its way out. Thread t's items sit at t * 17 + k (one word of padding per thread
// keeps its 8-byte stores free of bank conflicts).
struct table_stage_storage {
  static constexpr int cdf_stride = table_items + 1;
  std::uint64_t cdf[table_threads * cdf_stride];
  // Unsigned, so that the divisions are shifts and constant steps of `item` fold into offsets.
  __device__ __forceinline__ static unsigned cdf_slot(unsigned item) {
    return item / table_items * cdf_stride + item % table_items;
  }
};

// This thread's part of one tile: the units before its first item within the tile, and the tile's
// total. The units of its items wait in the stage's CDF slots (registers would cap the blocks per
// SM) until stage_local() turns them into the tile's own CDF in place.
//
// Two phases, so that the tile's prefix (the look-back) is needed only for the second:
//   stage_local()  every thread, any time after load(): the CDF within the tile, in the stage;
//   write_out()    after a barrier that follows stage_local() on every thread, with the prefix:
//                  the CDF (prefix + the staged values), the codes and the guide entries.
// write() does both, for a caller that knows the prefix already.
template <class T>
struct table_tile {
  std::uint64_t before;
  std::uint64_t total;  // the tile's units (every thread)
  bool bad;             // this thread saw a negative, NaN or infinite weight
  bool beyond;          // ... or a weight of 2^59 units or more (the thread's sum could overflow)

  // All threads; ends with a barrier, after which `s` may be reused. `stage` (if any) receives the
  // units for stage_local().
  __device__ __forceinline__ void load(const T* w, std::int64_t begin, std::int64_t n, int unit_exponent,
                                       table_tile_storage& s, table_stage_storage* stage = nullptr) {
    const units_plus plus;
    const scankit::detail::table_unit_scale scale(unit_exponent);
    const std::int64_t first = begin + std::int64_t(threadIdx.x) * table_items;
    T v[table_items];
#pragma unroll
    for (int c = 0; c < table_items / 4; ++c) load_items(w, first + 4 * c, n, *reinterpret_cast<T(*)[4]>(v + 4 * c));
    bad = beyond = false;
    std::uint64_t sum = 0;  // plain adds: 16 values below 2^59 cannot overflow
#pragma unroll
    for (int k = 0; k < table_items; ++k) {
      const scankit::detail::table_units u = scankit::detail::to_table_units(v[k], scale);
      bad = bad || u.bad;
      beyond = beyond || u.q >= (std::uint64_t(1) << 59);
      sum += u.q;
      if (stage != nullptr) stage->cdf[threadIdx.x * table_stage_storage::cdf_stride + k] = u.q;
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const std::uint64_t inclusive = warp_inclusive_scan(sum, plus);
    if (lane == 31) s.warp_sums[warp] = inclusive;
    const std::uint64_t before_lane = shuffle_up(inclusive, 1);
    __syncthreads();
    const std::uint64_t warps_inclusive = warp_inclusive_scan(lane < table_warps ? s.warp_sums[lane] : 0, plus);
    const std::uint64_t before_warp = shuffle_index(warps_inclusive, warp > 0 ? warp - 1 : 0);
    total = shuffle_index(warps_inclusive, table_warps - 1);
    before = plus(warp > 0 ? before_warp : 0, lane > 0 ? before_lane : 0);
    __syncthreads();
  }

  // This thread's staged units become the tile's CDF (from 0 at the tile's start). Plain adds: they
  // wrap only where the tile's total saturated, and then the build discards the fast table
  // (table_settle.cuh); every index below stays in bounds whatever the values.
  __device__ __forceinline__ void stage_local(table_stage_storage& stage) const {
    std::uint64_t run = before;
#pragma unroll
    for (unsigned k = 0; k < table_items; ++k) {
      std::uint64_t& slot = stage.cdf[threadIdx.x * table_stage_storage::cdf_stride + k];
      run += slot;
      slot = run;
    }
  }

  // Writes the tile's CDF, codes and guide entries, `prefix` units coming before it. The thread
  // that holds bin n - 1 also stores the total in the header. Reads the stage only, so a block that
  // loads another tile into it must synchronise first.
  __device__ __forceinline__ void write_out(std::int64_t begin, std::int64_t n, std::uint64_t prefix, int shift,
                                            std::int64_t last_entry, const table_arrays& a, table_header* header,
                                            const table_stage_storage& stage) const {
    // Plain adds where nothing can overflow (the tile's end fits), saturating ones otherwise; the
    // choice is the block's, so the branches on it are uniform.
    if (prefix <= scankit::detail::table_units_max - total) {
      write_out<false>(begin, n, prefix, shift, last_entry, a, header, stage);
    } else {
      write_out<true>(begin, n, prefix, shift, last_entry, a, header, stage);
    }
  }

  __device__ __forceinline__ void write(std::int64_t begin, std::int64_t n, std::uint64_t prefix, int shift,
                                        std::int64_t last_entry, const table_arrays& a, table_header* header,
                                        table_stage_storage& stage) const {
    stage_local(stage);
    __syncthreads();
    write_out(begin, n, prefix, shift, last_entry, a, header, stage);
  }

 private:
  template <bool Saturate>
  __device__ __forceinline__ static std::uint64_t absolute(std::uint64_t prefix, std::uint64_t local) {
    return Saturate ? units_plus{}(prefix, local) : prefix + local;
  }

  template <bool Saturate>
  __device__ __forceinline__ void write_out(std::int64_t begin, std::int64_t n, std::uint64_t prefix, int shift,
                                            std::int64_t last_entry, const table_arrays& a, table_header* header,
                                            const table_stage_storage& stage) const {
    const unsigned t = threadIdx.x;
    const std::int64_t first = begin + std::int64_t(t) * table_items;
    const std::int64_t to_last = n - 1 - first;  // this thread's item k is bin n - 1 when k == to_last
    if (to_last >= 0 && to_last < table_items) {
      header->total_units = absolute<Saturate>(
          prefix, stage.cdf[t * table_stage_storage::cdf_stride + static_cast<unsigned>(to_last)]);
    }
    // The CDF and the codes, two bins per thread and step: each warp stores 512 contiguous bytes of
    // CDF and 128 of codes, whole lines.
    const std::int64_t valid = n - begin < table_tile_items ? n - begin : table_tile_items;
#pragma unroll
    for (unsigned c = 0; c < table_tile_items / (2 * table_threads); ++c) {
      const unsigned item = 2 * (c * table_threads + t);
      const std::uint64_t x = absolute<Saturate>(prefix, stage.cdf[table_stage_storage::cdf_slot(item)]);
      const std::uint64_t y = absolute<Saturate>(prefix, stage.cdf[table_stage_storage::cdf_slot(item + 1)]);
      const unsigned codes = static_cast<unsigned>(guide_position(x, shift) & 0xffff) |
                             static_cast<unsigned>(guide_position(y, shift) << 16);
      if (item + 2 <= valid) {
        reinterpret_cast<ulonglong2*>(a.cdf + begin + item)[0] = make_ulonglong2(x, y);
        reinterpret_cast<unsigned*>(a.codes + begin + item)[0] = codes;
      } else if (item < valid) {
        a.cdf[begin + item] = x;
        a.codes[begin + item] = static_cast<std::uint16_t>(codes);
      }
    }
    // The guide entries of the cells this tile's bins reach: cell(prefix) + 1 .. cell(tile end) (tile
    // 0: from cell 0). Each thread takes cells and finds their first bin by binary search in the
    // staged CDF: the entries go out in order and no thread branches on its own bins. A tile whose
    // bins reach more than 4 cells per thread holds a wide bin: its bins record themselves.
    const std::uint64_t tile_end = absolute<Saturate>(prefix, total);
    const std::int64_t first_cell = begin == 0 ? 0 : guide_cell(prefix, shift) + 1;
    const std::int64_t top_cell = guide_cell(tile_end, shift);
    const std::int64_t last_cell = top_cell < last_entry ? top_cell : last_entry;
    if (last_cell - first_cell < 4 * table_threads) {
      for (std::int64_t j = first_cell + t; j <= last_cell; j += table_threads) {
        // cell(x) >= j <=> x >= reach; without saturation, x = prefix + local, and reach > prefix
        // for every cell after prefix's (tile 0: prefix is 0), so compare the staged value itself.
        const std::uint64_t reach = static_cast<std::uint64_t>(j) << shift;
        const std::uint64_t local_reach = Saturate ? reach : reach - prefix;
        unsigned lo = 0, hi = static_cast<unsigned>(valid) - 1;  // the tile's last bin reaches cell top_cell
        while (lo < hi) {
          const unsigned mid = (lo + hi) / 2;
          const std::uint64_t staged = stage.cdf[table_stage_storage::cdf_slot(mid)];
          if ((Saturate ? absolute<true>(prefix, staged) : staged) >= local_reach) hi = mid;
          else lo = mid + 1;
        }
        a.guide[j] = static_cast<std::uint32_t>(begin + lo);
      }
    } else {
      const std::uint64_t thread_start = absolute<Saturate>(prefix, before);
      std::int64_t cell = first == 0 ? -1 : guide_cell(thread_start, shift);
      for (int k = 0; k < table_items && first + k < n; ++k) {
        const std::int64_t top =
            guide_cell(absolute<Saturate>(prefix, stage.cdf[t * table_stage_storage::cdf_stride + k]), shift);
        if (top != cell) write_guide_span(first + k, n, cell, top, last_entry, a);
        cell = top;
      }
    }
    if (t == 0 && begin + valid == n) a.guide[top_cell < last_entry ? top_cell + 1 : last_entry] = static_cast<std::uint32_t>(n);
  }
};

}  // namespace scankit::device_detail::sampling
