#!/usr/bin/env bash
# Installs what scankit needs from Debian's packages when it is missing. The CUDA toolkit (nvcc,
# CCCL) is expected to be installed already (/usr/local/cuda); it is not in Debian's archive.
set -euo pipefail

need=()
have_pkg() { dpkg -s "$1" >/dev/null 2>&1; }
command -v cmake >/dev/null || need+=(cmake)
command -v g++ >/dev/null || need+=(g++)
command -v ccache >/dev/null || need+=(ccache)
[[ -f /usr/include/gtest/gtest.h ]] || need+=(libgtest-dev libgmock-dev)
[[ -f /usr/include/benchmark/benchmark.h ]] || need+=(libbenchmark-dev)
[[ -f /usr/include/CLI/CLI.hpp ]] || need+=(libcli11-dev)
[[ -f /usr/include/eigen3/Eigen/SparseCore ]] || need+=(libeigen3-dev)
[[ -f /usr/include/nlohmann/json.hpp ]] || need+=(nlohmann-json3-dev)


if ((${#need[@]})); then
  echo "bootstrap: installing ${need[*]}"
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

# The Python module (python/) is built where the Python that CMake finds has nanobind; its tests
# that need no GPU use pytest and numpy. All three come from PyPI; without them the module is
# skipped, not the build.
if command -v python3 >/dev/null && ! python3 -c "import nanobind, pytest, numpy" 2>/dev/null; then
  echo "bootstrap: installing nanobind, pytest and numpy for $(command -v python3) (pip)"
  python3 -m pip install -q --timeout 20 --retries 1 nanobind pytest numpy >/dev/null 2>&1 ||
    echo "bootstrap: pip could not install them: the Python module will not be built"
fi

if ! command -v nvcc >/dev/null; then
  if [[ -x /usr/local/cuda/bin/nvcc ]]; then
    echo "bootstrap: add /usr/local/cuda/bin to PATH"
  else
    echo "bootstrap: nvcc not found: install the CUDA toolkit (13.x) first" >&2
    exit 1
  fi
fi
