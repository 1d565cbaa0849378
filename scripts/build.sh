#!/usr/bin/env bash
# Configures and builds scankit into ${BUILD_DIR:-build} (all device code for sm_90 unless
# CUDA_ARCHITECTURES says otherwise). Extra arguments go to `cmake --build` (e.g. --target).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
scripts/bootstrap.sh
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHITECTURES:-90}" >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" "$@"
