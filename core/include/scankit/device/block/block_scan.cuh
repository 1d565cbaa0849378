// Picks the block scan for a scan_options::block_algorithm value at compile time.
#pragma once

#include "scankit/device/block/block_scan_brent_kung.cuh"
#include "scankit/device/block/block_scan_kogge_stone_double_buffer.cuh"
#include "scankit/device/block/block_scan_kogge_stone_read_sync_write.cuh"
#include "scankit/device/block/block_scan_warp_of_warps.cuh"
#include "scankit/scan_options.hpp"

namespace scankit::device_detail {

template <block_scan_algorithm Algorithm, class T, int BlockThreads>
struct block_scan_for;

template <class T, int B>
struct block_scan_for<block_scan_algorithm::kogge_stone_double_buffer, T, B> {
  using type = block_scan_kogge_stone_double_buffer<T, B>;
};
template <class T, int B>
struct block_scan_for<block_scan_algorithm::kogge_stone_read_sync_write, T, B> {
  using type = block_scan_kogge_stone_read_sync_write<T, B>;
};
template <class T, int B>
struct block_scan_for<block_scan_algorithm::brent_kung, T, B> {
  using type = block_scan_brent_kung<T, B>;
};
template <class T, int B>
struct block_scan_for<block_scan_algorithm::warp_of_warps, T, B> {
  using type = block_scan_warp_of_warps<T, B>;
};
template <class T, int B>
struct block_scan_for<block_scan_algorithm::automatic, T, B> {
  using type = block_scan_warp_of_warps<T, B>;
};

template <block_scan_algorithm Algorithm, class T, int BlockThreads>
using block_scan_t = typename block_scan_for<Algorithm, T, BlockThreads>::type;

}  // namespace scankit::device_detail
