#!/usr/bin/env bash
# The main job: builds the scan demo (the scan engine and the lab, not the whole library) and runs
# it on generated data: every strategy and block algorithm, checked against the host reference,
# timed against a copy. `scankit scan` in the full command line (scripts/build.sh) is the same.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh --target scankit_scan
exec "${BUILD_DIR:-build}/apps/scankit-scan" "$@"
