// SpMV for std::int32_t indices and double values (one translation unit per pair, so they compile in
// parallel).
#include "spmv_impl.cuh"

SCANKIT_INSTANTIATE_SPMV(std::int32_t, double)
