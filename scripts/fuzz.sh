#!/usr/bin/env bash
# Fuzzes the Matrix Market and METIS readers with libFuzzer (Debian's clang, with AddressSanitizer
# and UndefinedBehaviorSanitizer) for a bounded time, starting from fuzz/corpus.
#   scripts/fuzz.sh [seconds]      (default 120; needs clang: apt-get install clang)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-120}
out=${FUZZ_DIR:-build/fuzz}
mkdir -p "$out/corpus"
cp -n fuzz/corpus/* "$out/corpus/" 2>/dev/null || true
clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Ialgorithms/include -Icore/include -I/usr/local/cuda/include \
  fuzz/fuzz_matrix_market.cpp algorithms/src/sparse/matrix_market.cpp -pthread -o "$out/fuzz_matrix_market"
"$out/fuzz_matrix_market" -max_total_time="$seconds" -max_len=512 -timeout=5 -rss_limit_mb=4096 \
  -artifact_prefix="$out/" "$out/corpus"
