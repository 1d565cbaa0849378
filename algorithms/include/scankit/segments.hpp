// Everything that works on segments, precompiled for g++ callers: segmented scans (by head flags,
// by key, by offsets), segmented reductions, reduce / arg-min / arg-max and reduce-by-key.
// Templates for nvcc: scankit/device/segmented_scan.cuh, segmented_reduce.cuh, reduce.cuh and
// reduce_by_key.cuh.
#pragma once

#include "scankit/reduce.hpp"
#include "scankit/reduce_by_key.hpp"
#include "scankit/segmented_reduce.hpp"
#include "scankit/segmented_scan.hpp"
