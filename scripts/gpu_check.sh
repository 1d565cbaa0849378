#!/usr/bin/env bash
# The GPU check: runs on the machine with the GPU (the H200), from a build folder made elsewhere.
#
#   scripts/gpu_check.sh OUTDIR
#
# Steps (env STEPS, default "tests sanitizer bench"; each one keeps going when another fails):
#   tests      ctest -L gpu (the GPU suite)                          -> OUTDIR/gpu_tests.log
#   sanitizer  compute-sanitizer memcheck, racecheck, synccheck on the scan test binaries
#                                                                    -> OUTDIR/sanitizer_<tool>.log
#   bench      bench/bench_scan with JSON output                     -> OUTDIR/bench.log, bench_scan.json
# A short summary is printed last and kept in OUTDIR/summary.txt. The exit status is 0 only when
# every selected step passed. OUTDIR holds at most these 7 files.
#
# Environment:
#   BUILD_DIR               the build folder (default: <repo>/build)
#   STEPS                   which steps, in order (default "tests sanitizer bench")
#   TESTS_TIMEOUT           seconds for the whole ctest run (default 240)
#   TEST_TIMEOUT            seconds for one test (ctest --timeout, default 120)
#   TESTS_JOBS              ctest -j (default 1: the tests share one GPU)
#   SANITIZER_TESTS         test binaries to sanitize: names under BUILD_DIR/tests/core or paths
#                           (default test_scan_matrix_warp_of_warps if built, else every
#                           test_scan_* there)
#   SANITIZER_GTEST_FILTER  --gtest_filter for them (default '*'; pick small sizes, e.g. '*B32_K1*')
#   SANITIZER_TOOLS         default "memcheck racecheck synccheck"
#   SANITIZER_TIMEOUT       seconds per tool and binary (default 120)
#   BENCH_FILTER            --benchmark_filter (default: everything)
#   BENCH_ARGS              more bench_scan arguments (e.g. --benchmark_repetitions=3)
#   BENCH_TIMEOUT           seconds (default 330)
#   GPU_CHECK_DEADLINE      seconds the whole script may take (default 570); steps are cut short
#                           so that the summary is always printed, and time is kept for the bench
#   SCANKIT_COMMIT          recorded in the benchmark JSON (default: git HEAD of the repo, if known)
#
# Before copying a build folder to the GPU machine, run `ctest --test-dir build -N` once where it
# was built: that writes the test lists (gtest discovery), so the GPU machine needs nothing of the
# building machine's CMake. This script also bridges a build folder that was moved (bridge_build_paths).
set -u -o pipefail

if [[ $# -ne 1 || "$1" == -h || "$1" == --help ]]; then
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
  exit 2
fi

script_start=$(date +%s)
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$1" || { echo "gpu_check: cannot create $1" >&2; exit 2; }
OUTDIR=$(cd "$1" && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO/build}
[[ "$BUILD_DIR" == /* ]] || BUILD_DIR="$PWD/$BUILD_DIR"
STEPS=${STEPS:-"tests sanitizer bench"}
DEADLINE=${GPU_CHECK_DEADLINE:-570}
SUMMARY_FILE="$OUTDIR/summary.txt"
TMP=$(mktemp -d /tmp/gpu_check.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

export PATH="/usr/local/cuda/bin:$PATH"
for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib; do
  [[ -d "$d" ]] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done

say() { printf '[gpu_check] %s\n' "$*"; }
summary=()        # lines of the final summary
failed_steps=()   # names of the steps that failed
add() { summary+=("$*"); }
fail_step() { failed_steps+=("$1"); }

elapsed() { echo $(( $(date +%s) - script_start )); }
has_step() { [[ " $STEPS " == *" $1 "* ]]; }
# Seconds a step may take: its own limit, cut to what the deadline leaves after keeping
# `reserve` seconds for the steps still to come (and 15 s for the summary).
step_limit() {
  local want=$1 reserve=$2
  local left=$(( DEADLINE - $(elapsed) - reserve - 15 ))
  (( left < want )) && want=$left
  echo "$want"
}
# True when the deadline left less than `minimum` seconds of what a step asked for.
too_little() {
  local limit=$1 want=$2 minimum=$3
  (( limit <= 0 || (limit < want && limit < minimum) ))
}
# Runs "$@" under `timeout` (its exit status; 124 means it ran out of time).
run_limited() {
  local limit=$1; shift
  timeout -k 15 "$limit" "$@"
}

# ---------------------------------------------------------------------------------------------
# The machine.
{
  echo "gpu_check: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname)"
  echo "repo $REPO, build $BUILD_DIR, steps: $STEPS"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi -L 2>&1
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/GPU: /'
  else
    echo "nvidia-smi not found"
  fi
} | tee "$TMP/machine.txt"
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
add "GPU: ${gpu_name:-unknown}"

if [[ ! -d "$BUILD_DIR" ]]; then
  echo "gpu_check: build folder $BUILD_DIR not found (set BUILD_DIR)" >&2
  exit 2
fi

# A build folder keeps the absolute paths it was configured with (CTestTestfile.cmake, the test
# lists). When it was built at another path, make that path lead here.
bridge_build_paths() {
  local cache="$BUILD_DIR/CMakeCache.txt"
  [[ -f "$cache" ]] || return 0
  local old_build old_src real_build
  old_build=$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$cache" | head -n 1)
  old_src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$cache" | head -n 1)
  real_build=$(cd "$BUILD_DIR" && pwd -P)
  [[ -n "$old_build" && "$old_build" != "$real_build" && "$old_build" != "$BUILD_DIR" ]] || return 0
  if [[ -n "$old_src" && ! -e "$old_src" ]]; then
    mkdir -p "$(dirname "$old_src")" && ln -s "$REPO" "$old_src" &&
      say "linked $old_src -> $REPO (the build folder was configured there)"
  fi
  if [[ ! -e "$old_build" ]]; then
    mkdir -p "$(dirname "$old_build")" && ln -s "$real_build" "$old_build" &&
      say "linked $old_build -> $real_build (the build folder was configured there)"
  fi
  if [[ "$(cd "$old_build" 2>/dev/null && pwd -P)" != "$real_build" ]]; then
    say "warning: $old_build exists and is not this build folder; ctest may run other binaries"
  fi
}

# gtest discovery runs at ctest time unless the test lists are newer than the binaries; a copy
# may not keep timestamps, so freshen the lists that exist. Without them, discovery needs the
# GoogleTestAddTests.cmake of the CMake that configured the build: borrow this machine's if absent.
prepare_test_lists() {
  local lists
  lists=$(find "$BUILD_DIR" -name '*_tests.cmake' 2>/dev/null | wc -l)
  if (( lists > 0 )); then
    find "$BUILD_DIR" -name '*_tests.cmake' -exec touch {} +
    return 0
  fi
  local module
  module=$(grep -ho 'include("[^"]*GoogleTestAddTests.cmake")' -r "$BUILD_DIR" --include='*_include.cmake' 2>/dev/null |
           head -n 1 | sed 's/^include("//; s/")$//')
  [[ -z "$module" || -e "$module" ]] && return 0
  local here
  here=$(find "$(dirname "$(readlink -f "$(command -v cmake)")")/.." /usr/share /usr/local/share \
           -name GoogleTestAddTests.cmake -path '*Modules*' 2>/dev/null | head -n 1)
  if [[ -n "$here" ]] && mkdir -p "$(dirname "$module")" 2>/dev/null && ln -s "$here" "$module" 2>/dev/null; then
    say "no test lists in the build folder: using $here for gtest discovery"
  else
    say "warning: no test lists and no $module: run 'ctest --test-dir build -N' where the build was made"
  fi
}

# ---------------------------------------------------------------------------------------------
# Step: the GPU test suite.
step_tests() {
  local log="$OUTDIR/gpu_tests.log"
  local reserve=0
  has_step sanitizer && reserve=$(( reserve + 90 ))
  has_step bench && reserve=$(( reserve + 200 ))
  local limit
  limit=$(step_limit "${TESTS_TIMEOUT:-240}" "$reserve")
  if too_little "$limit" "${TESTS_TIMEOUT:-240}" 10; then
    add "tests: NOT RUN (no time left)"; fail_step tests; return
  fi
  bridge_build_paths
  prepare_test_lists
  say "tests: ctest -L gpu (limit ${limit}s) -> $log"
  local t0 rc
  t0=$(date +%s)
  run_limited "$limit" ctest --test-dir "$BUILD_DIR" -L gpu --output-on-failure --no-tests=error \
    --timeout "${TEST_TIMEOUT:-120}" -j "${TESTS_JOBS:-1}" >"$log" 2>&1
  rc=$?
  local secs=$(( $(date +%s) - t0 ))
  local line total failed skipped passed
  line=$(grep -E '[0-9]+% tests passed' "$log" | tail -n 1)
  skipped=$(grep -cE '\(Skipped\)$' "$log")
  if [[ -n "$line" ]]; then
    total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
    failed=0  # ctest prints "100% tests passed out of N" when nothing failed
    [[ "$line" =~ ([0-9]+)\ tests?\ failed ]] && failed=${BASH_REMATCH[1]}
    passed=$(( total - failed - skipped ))
    add "tests: $passed passed, $failed failed, $skipped skipped of $total (ctest -L gpu, ${secs}s, exit $rc)"
  elif (( rc == 124 || rc == 137 )); then
    add "tests: TIMED OUT after ${limit}s (see gpu_tests.log)"
  else
    add "tests: no ctest result line (exit $rc): $(grep -m1 -E 'No tests were found|Error|error' "$log")"
  fi
  if (( rc != 0 )); then
    fail_step tests
    while IFS= read -r l; do add "  failed: $l"; done < <(
      awk '/^The following tests FAILED:/ { on = 1; next } on && /^[[:space:]]+[0-9]+ - / { print }' "$log" |
        head -n 10 | sed 's/^[[:space:]]*//')
  fi
  (( skipped > 0 )) && add "  note: $skipped GPU tests skipped themselves (no device visible to them?)"
}

# ---------------------------------------------------------------------------------------------
# Step: compute-sanitizer on the scan tests.
find_sanitizer() {
  local c
  for c in "$(command -v compute-sanitizer 2>/dev/null)" /usr/local/cuda/bin/compute-sanitizer \
           /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
    [[ -n "$c" && -x "$c" ]] && { echo "$c"; return 0; }
  done
  return 1
}

sanitizer_binaries() {
  local dir="$BUILD_DIR/tests/core" b
  if [[ -n "${SANITIZER_TESTS:-}" ]]; then
    for b in $SANITIZER_TESTS; do
      if [[ "$b" == */* ]]; then echo "$b"; else echo "$dir/$b"; fi
    done
  elif [[ -x "$dir/test_scan_matrix_warp_of_warps" ]]; then
    echo "$dir/test_scan_matrix_warp_of_warps"
  else
    for b in "$dir"/test_scan_*; do
      [[ -f "$b" && -x "$b" ]] && echo "$b"
    done
  fi
}

step_sanitizer() {
  local sanitizer tools filter binaries=() b
  tools=${SANITIZER_TOOLS:-"memcheck racecheck synccheck"}
  filter=${SANITIZER_GTEST_FILTER:-'*'}
  if ! sanitizer=$(find_sanitizer); then
    add "sanitizer: compute-sanitizer NOT FOUND"; fail_step sanitizer; return
  fi
  while IFS= read -r b; do [[ -n "$b" ]] && binaries+=("$b"); done < <(sanitizer_binaries)
  if (( ${#binaries[@]} == 0 )); then
    add "sanitizer: no test binaries found under $BUILD_DIR/tests/core"; fail_step sanitizer; return
  fi
  local tool reserve=0
  has_step bench && reserve=200
  for tool in $tools; do
    local log="$OUTDIR/sanitizer_${tool}.log" tool_ok=1
    : >"$log"
    for b in "${binaries[@]}"; do
      local name limit rc
      name=$(basename "$b")
      limit=$(step_limit "${SANITIZER_TIMEOUT:-120}" "$reserve")
      if [[ ! -x "$b" ]]; then
        echo "### $b: not found" >>"$log"
        add "sanitizer $tool $name: BINARY NOT FOUND"; tool_ok=0; continue
      fi
      if too_little "$limit" "${SANITIZER_TIMEOUT:-120}" 10; then
        add "sanitizer $tool $name: NOT RUN (no time left)"; tool_ok=0; continue
      fi
      say "sanitizer: $tool on $name --gtest_filter=$filter (limit ${limit}s) -> $log"
      {
        echo "### compute-sanitizer --tool $tool --error-exitcode 1 $b --gtest_filter=$filter"
      } >>"$log"
      local t0
      t0=$(date +%s)
      (cd "$(dirname "$b")" && run_limited "$limit" "$sanitizer" --tool "$tool" --error-exitcode 1 \
        "$b" --gtest_filter="$filter") >"$TMP/run.log" 2>&1
      rc=$?
      local secs=$(( $(date +%s) - t0 ))
      cat "$TMP/run.log" >>"$log"
      echo "### exit $rc after ${secs}s" >>"$log"
      local errors tests
      errors=$(grep -E 'ERROR SUMMARY' "$TMP/run.log" | tail -n 1 | sed 's/^=* *//')
      tests=$(grep -E '^\[  (PASSED|FAILED)  \] [0-9]+ tests?' "$TMP/run.log" | tr '\n' ' ' | sed 's/ *$//')
      if (( rc == 124 || rc == 137 )); then
        add "sanitizer $tool $name: TIMED OUT after ${limit}s (${errors:-no error summary})"
      else
        add "sanitizer $tool $name: ${errors:-no ERROR SUMMARY line} | ${tests:-no gtest result} | exit $rc, ${secs}s"
      fi
      (( rc != 0 )) && tool_ok=0
    done
    (( tool_ok )) || fail_step "sanitizer:$tool"
  done
}

# ---------------------------------------------------------------------------------------------
# Step: the benchmarks.
step_bench() {
  local bin="$BUILD_DIR/bench/bench_scan" log="$OUTDIR/bench.log" json="$OUTDIR/bench_scan.json"
  if [[ ! -x "$bin" ]]; then
    add "bench: $bin NOT FOUND (was Google Benchmark found at configure time?)"; fail_step bench; return
  fi
  local limit
  limit=$(step_limit "${BENCH_TIMEOUT:-330}" 0)
  if too_little "$limit" "${BENCH_TIMEOUT:-330}" 30; then
    add "bench: NOT RUN (no time left)"; fail_step bench; return
  fi
  if [[ -z "${SCANKIT_COMMIT:-}" ]]; then
    local head
    if head=$(git -C "$REPO" rev-parse --short=12 HEAD 2>/dev/null); then
      [[ -n "$(git -C "$REPO" status --porcelain --untracked-files=no 2>/dev/null)" ]] && head="$head-dirty"
      export SCANKIT_COMMIT="$head"
    fi
  fi
  local args=(--benchmark_out="$json" --benchmark_out_format=json)
  [[ -n "${BENCH_FILTER:-}" ]] && args+=(--benchmark_filter="$BENCH_FILTER")
  # shellcheck disable=SC2206
  [[ -n "${BENCH_ARGS:-}" ]] && args+=(${BENCH_ARGS})
  say "bench: $bin ${args[*]} (limit ${limit}s) -> $log"
  local t0 rc
  t0=$(date +%s)
  run_limited "$limit" "$bin" "${args[@]}" >"$log" 2>&1
  rc=$?
  local secs=$(( $(date +%s) - t0 ))
  local rows
  rows=$(grep -E '^== bench_scan: [0-9]+ rows' "$log" | tail -n 1 | sed 's/^== bench_scan: //')
  if (( rc == 124 || rc == 137 )); then
    add "bench: TIMED OUT after ${limit}s (the JSON is incomplete)"
  else
    add "bench: ${rows:-no summary table} (exit $rc, ${secs}s; bench.log, bench_scan.json)"
  fi
  (( rc == 0 )) || fail_step bench
  # int32 at 2^20, 2^24, 2^28: copy, CUB and the four strategies with the warp-of-warps block scan.
  local table
  table=$(awk '
    /^== bench_scan summary/ { on = 1; next }
    on && $1 == "kind" { header = $0; next }
    on && ($4 == "int32") && ($5 == 1048576 || $5 == 16777216 || $5 == 268435456) &&
      ($1 == "copy" || $1 == "cub" || $3 == "warp_of_warps") { print }
    ' "$log")
  if [[ -n "$table" ]]; then
    add "$(grep -m1 -E '^kind +strategy' "$log")"
    while IFS= read -r l; do add "$l"; done <<<"$table"
  fi
  local errors
  errors=$(awk '/^== bench_scan summary/ { on = 1; next } on && / ERROR / { print }' "$log" | head -n 10)
  [[ -n "$errors" ]] && while IFS= read -r l; do add "bench error: $l"; done <<<"$errors"
  [[ -z "$rows" ]] && tail -n 5 "$log" | while IFS= read -r l; do echo "  bench.log: $l"; done
}

# ---------------------------------------------------------------------------------------------
# Extra steps, each one binary whose output goes to OUTDIR (not in the default STEPS):
#   tune     bench/tune_scan: shapes and back-off of the single-pass kernel  -> tune_scan.{log,json}
#   compact  bench/bench_compact: compaction against CUB                     -> bench_compact.{log,json}
#   lab      apps/scankit lab (LAB_ARGS, default --quick)                    -> OUTDIR/lab/, lab.log
#   cli      compute-sanitizer (memcheck, racecheck, synccheck) on `scankit scan --n $CLI_N`
#            (default 300000): every strategy x block algorithm of the precompiled int32 sum at 74
#            register tiles; 2000000 also reaches the staged kernel's L2 prefetch (more than 128
#            tiles of 32 KiB)                                           -> sanitizer_cli.log
step_binary() {
  local name=$1 bin=$2 limit=$3; shift 3
  if [[ ! -x "$bin" ]]; then add "$name: $bin NOT FOUND"; fail_step "$name"; return; fi
  say "$name: $bin $* (limit ${limit}s)"
  local t0 rc
  t0=$(date +%s)
  run_limited "$limit" "$bin" "$@" >"$OUTDIR/$name.log" 2>&1
  rc=$?
  add "$name: exit $rc after $(( $(date +%s) - t0 ))s ($name.log)"
  (( rc == 0 )) || fail_step "$name"
}
step_cli_sanitizer() {
  local sanitizer log="$OUTDIR/sanitizer_cli.log" tool rc errors
  sanitizer=$(find_sanitizer) || { add "cli sanitizer: compute-sanitizer NOT FOUND"; fail_step cli; return; }
  : >"$log"
  for tool in memcheck racecheck synccheck; do
    run_limited 120 "$sanitizer" --tool "$tool" --error-exitcode 1 "$BUILD_DIR/apps/scankit" scan --n "${CLI_N:-300000}" \
      --repeat 1 >"$TMP/run.log" 2>&1
    rc=$?
    cat "$TMP/run.log" >>"$log"
    errors=$(grep -E 'ERROR SUMMARY' "$TMP/run.log" | tail -n 1 | sed 's/^=* *//')
    add "sanitizer $tool scankit scan: ${errors:-no ERROR SUMMARY line} | exit $rc"
    (( rc == 0 )) || fail_step "cli:$tool"
  done
}

for step in $STEPS; do
  case "$step" in
    tests) step_tests ;;
    sanitizer) step_sanitizer ;;
    bench) step_bench ;;
    tune) step_binary tune_scan "$BUILD_DIR/bench/tune_scan" 200 --json "$OUTDIR/tune_scan.json" ;;
    compact) step_binary bench_compact "$BUILD_DIR/bench/bench_compact" 200 \
               --benchmark_out="$OUTDIR/bench_compact.json" --benchmark_out_format=json ;;
    lab) step_binary lab "$BUILD_DIR/apps/scankit" 400 lab ${LAB_ARGS:---quick} --out "$OUTDIR/lab" ;;
    cli) step_cli_sanitizer ;;
    *) add "unknown step '$step' (known: tests sanitizer bench tune compact lab cli)"; fail_step "$step" ;;
  esac
done

{
  echo
  echo "================ gpu_check summary ================"
  cat "$TMP/machine.txt"
  printf '%s\n' "${summary[@]}"
  if (( ${#failed_steps[@]} == 0 )); then
    echo "gpu_check: PASS ($(elapsed)s; steps: $STEPS)"
  else
    echo "gpu_check: FAIL: ${failed_steps[*]} ($(elapsed)s; steps: $STEPS)"
  fi
} | tee "$SUMMARY_FILE"

(( ${#failed_steps[@]} == 0 ))
