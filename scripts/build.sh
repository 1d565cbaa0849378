#!/usr/bin/env bash
# Configures and builds scankit into ${BUILD_DIR:-build}: the libraries and apps for sm_80, sm_89,
# sm_90 and sm_100 unless CUDA_ARCHITECTURES says otherwise (e.g. CUDA_ARCHITECTURES=90), the
# tests and benchmarks for sm_90. Extra arguments go to `cmake --build` (e.g. --target).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
scripts/bootstrap.sh
BUILD_DIR=${BUILD_DIR:-build}
arch=()
[[ -n "${CUDA_ARCHITECTURES:-}" ]] && arch=(-DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHITECTURES")
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release "${arch[@]}" >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" "$@"
