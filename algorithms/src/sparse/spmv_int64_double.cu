// SpMV for std::int64_t indices and double values (one translation unit per pair, so they compile in
// parallel).
#include "spmv_impl.cuh"

SCANKIT_INSTANTIATE_SPMV(std::int64_t, double)
