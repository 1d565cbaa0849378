#!/usr/bin/env bash
# Configures and builds scankit into ${BUILD_DIR:-build}, for the GPU that is present: the
# architecture nvidia-smi reports (CMake's "native"), or sm_90 when no GPU is found. Every part
# (the library, the scan lab, the tests and benchmarks) is built for that one architecture.
#
#   CUDA_ARCHITECTURES="80;90;100" scripts/build.sh       the library for every GPU scankit
#                                                         supports (what a package ships: sm_89
#                                                         runs sm_80's code; the tests stay at
#                                                         sm_90, the lab at compute_80 PTX + sm_90)
#   CUDA_ARCHITECTURES=89 scripts/build.sh                one other architecture
#
# An existing build folder keeps the architectures it was configured with unless
# CUDA_ARCHITECTURES is set. LAB_CUDA_ARCHITECTURES sets the scan lab's alone (e.g. 90).
# Extra arguments go to `cmake --build` (e.g. --target scankit_cli).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
scripts/bootstrap.sh
BUILD_DIR=${BUILD_DIR:-build}

# The compute capability of the first GPU, as CMake writes it (9.0 -> 90), or nothing.
gpu_architecture() {
  command -v nvidia-smi >/dev/null 2>&1 || return 0
  nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .' || true
}

configure=(-DCMAKE_BUILD_TYPE=Release)
if [[ -n "${CUDA_ARCHITECTURES:-}" ]]; then
  archs=$CUDA_ARCHITECTURES
  configure+=(-DCMAKE_CUDA_ARCHITECTURES="$archs")
  if [[ "$archs" != *";"* && "$archs" != *" "* ]]; then
    # One architecture: the lab, the tests and the benchmarks follow it.
    configure+=(-DSCANKIT_TEST_CUDA_ARCHITECTURES="$archs" -DSCANKIT_LAB_CUDA_ARCHITECTURES="$archs")
  fi
  echo "build: CUDA architectures $archs (from CUDA_ARCHITECTURES)"
elif [[ -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  archs=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$BUILD_DIR/CMakeCache.txt")
  echo "build: CUDA architectures ${archs:-?} (as $BUILD_DIR was configured; set CUDA_ARCHITECTURES to change)"
else
  archs=$(gpu_architecture)
  if [[ -n "$archs" ]]; then
    echo "build: CUDA architecture sm_$archs (the GPU found by nvidia-smi)"
  else
    archs=90
    echo "build: no GPU found; CUDA architecture sm_90 (H100/H200)"
  fi
  configure+=(-DCMAKE_CUDA_ARCHITECTURES="$archs" -DSCANKIT_TEST_CUDA_ARCHITECTURES="$archs"
              -DSCANKIT_LAB_CUDA_ARCHITECTURES="$archs")
  echo "build: for other GPUs set CUDA_ARCHITECTURES (e.g. CUDA_ARCHITECTURES=\"80;90;100\", every GPU scankit supports)"
fi
if [[ -n "${LAB_CUDA_ARCHITECTURES:-}" ]]; then
  configure+=(-DSCANKIT_LAB_CUDA_ARCHITECTURES="$LAB_CUDA_ARCHITECTURES")
  echo "build: the scan lab for CUDA architectures $LAB_CUDA_ARCHITECTURES (from LAB_CUDA_ARCHITECTURES)"
fi
cmake -S . -B "$BUILD_DIR" "${configure[@]}" >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" "$@"
