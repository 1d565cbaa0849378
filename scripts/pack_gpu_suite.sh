#!/usr/bin/env bash
# Packs what the GPU checks need from build/ into one archive that fits a device call's carry
# (64 MiB): the ctest files, the binaries of the gpu-labelled tests, the Python module and any
# extra files named as arguments (paths under build/), stripped, then xz with a dictionary that
# spans the files, so that the copies of the library's kernels in every test binary compress
# against each other (525 MB of binaries to about 40 MB; three minutes on two cores).
#   scripts/pack_gpu_suite.sh [build-relative paths...]     # OUT_FILE: where (.carry/suite.tar.xz)
# On the GPU machine: tar -xJf the archive in the checkout, then scripts/gpu_check.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(pwd)/${OUT_FILE:-.carry/suite.tar.xz}"; mkdir -p "$(dirname "$out")"
stage=$(mktemp -d); trap 'rm -rf "$stage"' EXIT; mkdir -p "$stage/build"
ctest --test-dir build -N >/dev/null
ctest --test-dir build -L gpu --show-only=json-v1 | python3 -c '
import json, sys, os
s = {t["command"][0] for t in json.load(sys.stdin)["tests"] if t.get("command")}
print("\n".join(sorted(os.path.relpath(b, "build") for b in s)))' > "$stage/binaries.txt"
cd build
{ find . \( -name CTestTestfile.cmake -o -name '*_tests.cmake' -o -name '*_include.cmake' -o -name CMakeCache.txt \);
  cat "$stage/binaries.txt"; if [ -d python/scankit ]; then find python/scankit -type f; fi; printf '%s\n' "$@"; } | tar -T - -cf - | tar -xf - -C "$stage/build"
find "$stage/build" -type f -perm -u+x \( -name 'test_*' -o -name 'bench_*' -o -name 'tune_*' \) -exec strip --strip-unneeded {} + 2>/dev/null || true
find "$stage/build" -name '*.so' -exec strip --strip-unneeded {} + 2>/dev/null || true
cd "$stage" && tar -cf - build | xz -T1 --lzma2=preset=6,dict=1GiB > "$out"
ls -la "$out"
