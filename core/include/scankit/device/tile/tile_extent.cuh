// Tile layer: where a tile's items lie in an input of n items.
#pragma once

namespace scankit::device_detail {

template <long long TileItems>
__host__ __device__ constexpr long long tiles_of(long long n) {
  return (n + TileItems - 1) / TileItems;
}

struct tile_extent {
  long long base;  // the tile's first item
  int valid;       // how many of its items exist: TileItems, fewer in the last tile
};

template <int TileItems>
__device__ __forceinline__ tile_extent tile_extent_of(long long tile, long long n) {
  const long long base = tile * TileItems;
  const long long remaining = n - base;
  return {base, remaining < TileItems ? static_cast<int>(remaining) : TileItems};
}

}  // namespace scankit::device_detail
