#!/usr/bin/env bash
# The test command: builds everything and runs the tests. Without a GPU the tests labelled `gpu`
# report as skipped and the host tests run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j"$(nproc)"
