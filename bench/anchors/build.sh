#!/usr/bin/env bash
# Builds the anchor programs that need headers scankit does not ship (README.md here):
#   CCCL_INCLUDE        the cuda-cccl 1.2.1 wheel's cuda/cccl/headers/include (CCCL 3.6)
#   FLASHINFER_INCLUDE  FlashInfer 0.6.18's include/ (the folder that holds flashinfer/)
# Either may be left unset to skip its program. Output: OUT_DIR (default: this folder).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT_DIR:-$here}"
NVCC="${NVCC:-nvcc}"
ARCH="${ARCH:-sm_90}"
if [[ -n "${CCCL_INCLUDE:-}" ]]; then
  "$NVCC" -O3 -std=c++17 -arch="$ARCH" -DNDEBUG --expt-relaxed-constexpr -I "$CCCL_INCLUDE" -I "$here" \
    "$here/cub_top_k_anchor.cu" -o "$out/cub_top_k_anchor"
  "$NVCC" -O3 -std=c++17 -arch="$ARCH" -DNDEBUG --expt-relaxed-constexpr -I "$CCCL_INCLUDE" -I "$here" \
    "$here/cub_sort_anchor.cu" -o "$out/cub_sort_anchor"
fi
if [[ -n "${FLASHINFER_INCLUDE:-}" ]]; then
  # FlashInfer's own flags for its sampling and top-k kernels (its JIT: -use_fast_math).
  "$NVCC" -O3 -std=c++17 -arch="$ARCH" -DNDEBUG -use_fast_math --expt-relaxed-constexpr -I "$FLASHINFER_INCLUDE" \
    -I "$here" "$here/flashinfer_top_k_anchor.cu" -o "$out/flashinfer_top_k_anchor"
  "$NVCC" -O3 -std=c++17 -arch="$ARCH" -DNDEBUG -use_fast_math --expt-relaxed-constexpr -I "$FLASHINFER_INCLUDE" \
    -I "$here" "$here/flashinfer_sampling_anchor.cu" -o "$out/flashinfer_sampling_anchor"
fi
