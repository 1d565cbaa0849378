#!/usr/bin/env bash
# The main job: builds the command line and runs the scan demo on generated data
# (every strategy and block algorithm, checked against the host reference, timed against a copy).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh --target scankit_cli
exec "${BUILD_DIR:-build}/apps/scankit" scan "$@"
