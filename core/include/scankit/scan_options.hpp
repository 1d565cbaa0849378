// Choices a caller can make about how a scan runs. Plain C++: usable from g++-compiled code.
#pragma once

#include <cstdint>
#include <string>

namespace scankit {

// Whole-array strategy.
enum class scan_strategy {
  automatic,           // decoupled look-back
  three_launch,        // scan blocks + write totals; scan totals (recursively); add offsets
  reduce_then_scan,    // reduce tiles; scan totals; rescan tiles seeded with their offsets
  chained,             // single pass, each tile waits for its predecessor's inclusive prefix
  decoupled_look_back  // single pass, tiles look back over published aggregates and prefixes
};

// How one thread block scans its threads' partial totals.
enum class block_scan_algorithm {
  automatic,                    // warp_of_warps
  kogge_stone_double_buffer,    // Hillis-Steele over two shared buffers: one barrier per step
  kogge_stone_read_sync_write,  // one buffer: read, barrier, write, barrier per step
  brent_kung,                   // work-efficient up-sweep then down-sweep
  warp_of_warps                 // shuffle scan per warp, warp totals scanned by one warp: two barriers
};

// Built-in associative operators of the precompiled API.
enum class scan_op { plus, maximum, minimum, bit_and, bit_or, bit_xor };

struct scan_options {
  scan_strategy strategy = scan_strategy::automatic;
  block_scan_algorithm block_algorithm = block_scan_algorithm::automatic;
  // Items each thread scans serially (coarsening). 0 picks the tuned value for the value type.
  // The precompiled library offers 1, 2, 4, 8 and 16 for int32 and float sums and the tuned
  // value otherwise; the template API takes any positive value at compile time.
  int items_per_thread = 0;
  // Floating-point results with the same bits on every run (same input, same GPU). Only the
  // decoupled look-back needs it (its association follows the timing of the tiles); it then uses
  // a look-back with a fixed association. The other strategies are deterministic anyway, and so
  // are integer operators. See docs/scan-engine.md for its cost.
  bool deterministic = false;
};

const char* to_string(scan_strategy s) noexcept;
const char* to_string(block_scan_algorithm a) noexcept;
const char* to_string(scan_op op) noexcept;
// Parse the names printed by to_string; throw scankit::error on an unknown name.
scan_strategy parse_scan_strategy(const std::string& name);
block_scan_algorithm parse_block_scan_algorithm(const std::string& name);
scan_op parse_scan_op(const std::string& name);

}  // namespace scankit
