#!/usr/bin/env bash
# The GPU check: runs on the machine with the GPU (the H200), from a build folder made elsewhere.
#
#   scripts/gpu_check.sh OUTDIR
#
# Steps (env STEPS, default "tests sanitizer bench"; each one keeps going when another fails):
#   tests      ctest -L gpu (the GPU suite)                          -> OUTDIR/gpu_tests.log
#   sanitizer  compute-sanitizer memcheck, racecheck, synccheck on the test cases labelled
#              `sanitize` (scan matrices, compaction, sort, segmented scans and reductions,
#              sampling, SpMV, CG), at small sizes
#                                                                    -> OUTDIR/sanitizer.log
#   bench      bench/bench_scan with JSON output                     -> OUTDIR/bench.log, bench_scan.json
#   compare    (not in the default STEPS) bench/bench_scan and bench/bench_compact of two builds,
#              BEFORE_BUILD_DIR (old) and BUILD_DIR (new), run alternately in this call (round 1:
#              old scan, new scan, old compact, new compact; round 2: the same; ...), then
#              scripts/compare_bench.py prints a before/after table into the summary
#                                                                    -> OUTDIR/compare.log, compare.json
# A short summary is printed last and kept in OUTDIR/summary.txt. The exit status is 0 only when
# every selected step passed (rows the compare step flags as slower do not fail it).
#
# Files in OUTDIR (the GPU machine hands back at most 8): with the steps tests, sanitizer, bench
# and compare at most these 7:
#   summary.txt       the summary (also printed last)
#   gpu_tests.log     tests: ctest's output
#   sanitizer.log     sanitizer (and cli): every tool x binary, each section headed "### <tool> ..."
#   bench.log         bench: bench_scan's output (its summary table at the end)
#   bench_scan.json   bench: Google Benchmark JSON
#   compare.log       compare: every run's output in order (headed "### compare round <r> <old|new>
#                     <binary>"), then compare_bench.py's full table
#   compare.json      compare: every run's JSON in one file (compare_bench.py --merge format:
#                     runs[<binary>][old|new] = the rounds; reprint with
#                     `scripts/compare_bench.py compare.json`)
# The extra steps add: tune 2 files (tune_scan.log, .json), compact 2 (bench_compact.log, .json),
# lab 1 and a folder (lab.log, lab/), cli none (it appends to sanitizer.log), sort up to 4
# (bench_sort.log, .json: bench/bench_sort; torch_sort.log, .json: bench/torch_sort.py, when
# PyTorch is installed), spmv up to 4 (bench_spmv.log, .json; python_spmv.log, .json: CuPy and
# torch on the same matrices, when either is installed), cg 2 (bench_cg.log, .json), sampling up
# to 4 (bench_sampling.log, .json; torch_sampling.log, .json), python 3 (python_tests.log;
# python_bench.log, .json: the Python package's GPU tests and python/bench.py, from the module the
# build folder holds in python/scankit).
#
# Environment:
#   BUILD_DIR               the build folder (default: <repo>/build)
#   STEPS                   which steps, in order (default "tests sanitizer bench")
#   TESTS_TIMEOUT           seconds for the whole ctest run (default 240)
#   TEST_TIMEOUT            seconds for one test (ctest --timeout, default 120)
#   TESTS_JOBS              ctest -j (default 1: the tests share one GPU)
#   SANITIZER_TESTS         test binaries to sanitize instead of the default (paths, or names under
#                           BUILD_DIR/tests such as segments/test_reduce), each with
#                           SANITIZER_GTEST_FILTER (default '*'). Unset: the cases the build labels
#                           `sanitize` (tests/CMakeLists.txt: scankit_add_test ... SANITIZE "<filter>"),
#                           listed by `ctest -L sanitize --show-only=json-v1`, grouped by binary;
#                           the summary says how many cases each binary runs.
#   SCANKIT_TEST_SMALL      the sanitizer runs set it to 1 unless it is set (compaction tests then
#                           stay below ~10 tiles; 0 gives the full sizes)
#   SANITIZER_TOOLS         default "memcheck racecheck synccheck"
#   SANITIZER_TIMEOUT       seconds per tool and binary, or per case for the tools in
#                           SANITIZER_SPLIT (default 120)
#                           A binary whose filter matches no test fails its tool.
#   SANITIZER_SPLIT         tools that run each case of a filter on its own, each with its own
#                           limit and summary line (e.g. "racecheck" for a few slow cases; default
#                           none: every filter runs whole, one process per tool and binary)
#   BENCH_FILTER            --benchmark_filter (default: everything)
#   BENCH_ARGS              more bench_scan arguments (e.g. --benchmark_repetitions=3)
#   BENCH_TIMEOUT           seconds (default 330)
#   GPU_CHECK_DEADLINE      seconds the whole script may take (default 570); steps are cut short
#                           so that the summary is always printed, and time is kept for the steps
#                           still to come (sanitizer 340 s with its three tools, 55 s for
#                           memcheck alone; bench 120 s, compare 200 s). On the
#                           H200 the default sanitizer step takes about 340 s (racecheck most of
#                           it) and the suite about 180 s with TESTS_JOBS=8: run "tests sanitizer"
#                           in one call (GPU_CHECK_DEADLINE about 560), and bench or compare
#                           (estimated 4 minutes with the defaults: 8 runs) in calls of their own.
#   SCANKIT_COMMIT          recorded in the benchmark JSON (default: git HEAD of the repo, if known)
# The compare step:
#   BEFORE_BUILD_DIR        the old build folder (required; same layout as BUILD_DIR: its
#                           bench/bench_scan and bench/bench_compact are run). A binary missing on
#                           either side is left out with a note; the step fails if none is left.
#   BEFORE_COMMIT           recorded as scankit_commit in the old runs' JSON (default: the commit
#                           the old binaries were built from)
#   COMPARE_ROUNDS          rounds (default 2); each round runs old then new of each binary
#   COMPARE_BENCHES         which binaries (default "bench_scan bench_compact")
#   COMPARE_FILTER          bench_scan's --benchmark_filter (default '/268435456|/65536': the 2^28
#                           and the 2^16 rows, with their copy and CUB rows; set but empty: all)
#   COMPARE_SORT_FILTER     bench_sort's --benchmark_filter (default: the 2^28 rows of each key type
#                           and argsort, onesweep and CUB's order, with their copy and cub rows; set
#                           but empty: all)
#   COMPARE_COMPACT_FILTER  bench_compact's --benchmark_filter (default: every row; all are 2^28
#                           and their names carry no size; a filter must keep each workload's
#                           copy and cub rows, which the scankit rows need)
#   COMPARE_ARGS            more arguments for every compare run (e.g. --benchmark_repetitions=3)
#   COMPARE_RUN_TIMEOUT     seconds per run (default 150); runs that no longer fit the deadline
#                           are left out (a run cut short still gives its finished rows)
#   COMPARE_THRESHOLD       compare_bench.py --threshold: flag rows whose new time is more than
#                           this fraction slower (default 0.01), by best and by median of rounds
#   COMPARE_SUMMARY         "full" (default): the whole table goes into the summary; "flagged":
#                           only the flagged rows and the totals (compare.log keeps the whole table)
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
# Seconds the sanitizer step is expected to take with the tools asked for (the H200's default
# step: about 340 s, racecheck most of it).
sanitizer_reserve() {
  local tool total=0
  for tool in ${SANITIZER_TOOLS:-memcheck racecheck synccheck}; do
    case "$tool" in
      racecheck) total=$(( total + 230 )) ;;
      *) total=$(( total + 55 )) ;;
    esac
  done
  echo "$total"
}
# Seconds to keep for the steps listed after the first `$1` in STEPS (0 for the others).
reserve_after() {
  local current=$1 seen=0 total=0 s
  for s in $STEPS; do
    if (( seen )); then
      case "$s" in
        sanitizer) total=$(( total + $(sanitizer_reserve) )) ;;
        bench) total=$(( total + 120 )) ;;
        compare) total=$(( total + 200 )) ;;
      esac
    elif [[ "$s" == "$current" ]]; then
      seen=1
    fi
  done
  echo "$total"
}
# Logs shared by several steps are emptied once per script run, by the first step that writes.
started_logs=" "
start_log() {
  [[ "$started_logs" == *" $1 "* ]] && return 0
  : >"$1"
  started_logs+="$1 "
}
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
# lists, the binaries' run paths to the shared libraries). When it was built at another path, make
# that path lead here. $1: the build folder (default BUILD_DIR); its source path is linked to this
# repository only for BUILD_DIR (another build, e.g. BEFORE_BUILD_DIR, was made from other sources).
bridge_build_paths() {
  local dir=${1:-$BUILD_DIR}
  local cache="$dir/CMakeCache.txt"
  [[ -f "$cache" ]] || return 0
  local old_build old_src real_build
  old_build=$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$cache" | head -n 1)
  old_src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$cache" | head -n 1)
  real_build=$(cd "$dir" && pwd -P)
  [[ -n "$old_build" && "$old_build" != "$real_build" && "$old_build" != "$dir" ]] || return 0
  if [[ "$dir" == "$BUILD_DIR" && -n "$old_src" && ! -e "$old_src" ]]; then
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
  local reserve
  reserve=$(reserve_after tests)
  local limit
  limit=$(step_limit "${TESTS_TIMEOUT:-240}" "$reserve")
  if too_little "$limit" "${TESTS_TIMEOUT:-240}" 10; then
    add "tests: NOT RUN (no time left)"; fail_step tests; return
  fi
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
# One line per binary to sanitize: "<path><TAB><gtest filter>". By default the cases the build
# labels `sanitize` (scankit_add_test ... SANITIZE in tests/), grouped by binary; SANITIZER_TESTS
# overrides that with its own binaries.
sanitizer_binaries() {
  local b filter
  if [[ -n "${SANITIZER_TESTS:-}" ]]; then
    filter=${SANITIZER_GTEST_FILTER:-'*'}
    for b in $SANITIZER_TESTS; do
      [[ -x "$b" ]] || b="$BUILD_DIR/tests/$b"
      printf '%s\t%s\n' "$b" "$filter"
    done
    return 0
  fi
  ctest --test-dir "$BUILD_DIR" -L sanitize --show-only=json-v1 2>/dev/null | python3 -c '
import json, sys
cases = {}
for test in json.load(sys.stdin).get("tests", []):
    command = test.get("command") or []
    names = [a[len("--gtest_filter="):] for a in command[1:] if a.startswith("--gtest_filter=")]
    if command and names:
        cases.setdefault(command[0], []).extend(names)
for binary, names in cases.items():
    print(binary + "\t" + ":".join(names))
'
}

# Step: compute-sanitizer on the cases labelled `sanitize`.
find_sanitizer() {
  local c
  for c in "$(command -v compute-sanitizer 2>/dev/null)" /usr/local/cuda/bin/compute-sanitizer \
           /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
    [[ -n "$c" && -x "$c" ]] && { echo "$c"; return 0; }
  done
  return 1
}

# Step: bench_spmv (every matrix, kernel, shape and candidate), its matrices dumped for
# bench/python_spmv.py (CuPy and torch on the same data) when either is installed.
step_spmv() {
  local dump="$TMP/spmv_matrices"
  mkdir -p "$dump"
  export SCANKIT_SPMV_DUMP="$dump"
  step_binary bench_spmv "$BUILD_DIR/bench/bench_spmv" 400 --benchmark_repetitions=1 \
    --benchmark_filter="${SPMV_FILTER:-.}" --benchmark_out="$OUTDIR/bench_spmv.json" --benchmark_out_format=json
  unset SCANKIT_SPMV_DUMP
  if python3 -c "import cupy" 2>/dev/null || python3 -c "import torch" 2>/dev/null; then
    step_binary python_spmv "$(command -v python3 || echo python3)" 300 "$REPO/bench/python_spmv.py" "$dump" --json "$OUTDIR/python_spmv.json"
  fi
  rm -rf "$dump"
}

# Step: bench_sampling, then bench/torch_sampling.py (torch.multinomial, searchsorted and a top-p
# sampler on the same workloads) when PyTorch is there.
step_sampling() {
  step_binary bench_sampling "$BUILD_DIR/bench/bench_sampling" 200 --benchmark_repetitions=1 \
    --benchmark_out="$OUTDIR/bench_sampling.json" --benchmark_out_format=json
  if python3 -c "import torch" 2>/dev/null; then
    step_binary torch_sampling "$(command -v python3 || echo python3)" 200 "$REPO/bench/torch_sampling.py" --json "$OUTDIR/torch_sampling.json"
  fi
}

# Step: bench_sort, then torch.sort / torch.argsort at the same size when PyTorch is there.
step_sort() {
  step_binary bench_sort "$BUILD_DIR/bench/bench_sort" 240 --benchmark_repetitions=1 \
    --benchmark_out="$OUTDIR/bench_sort.json" --benchmark_out_format=json
  if python3 -c 'import torch' >/dev/null 2>&1; then
    step_binary torch_sort "$REPO/bench/torch_sort.py" 120 --json "$OUTDIR/torch_sort.json"
  else
    add "torch_sort: PyTorch not found, not run"
  fi
}

# One compute-sanitizer run: tool, binary, gtest filter, the name the summary gives it. Reads
# $sanitizer, $log, $small and $reserve from step_sanitizer. Returns 1 when the run did not pass.
sanitize_run() {
  local tool=$1 b=$2 filter=$3 label=$4 limit rc
  limit=$(step_limit "${SANITIZER_TIMEOUT:-120}" "$reserve")
  if too_little "$limit" "${SANITIZER_TIMEOUT:-120}" 10; then
    add "sanitizer $tool $label: NOT RUN (no time left)"; return 1
  fi
  say "sanitizer: $tool on $(basename "$b") --gtest_filter=$filter (limit ${limit}s) -> $log"
  echo "### $tool $label: SCANKIT_TEST_SMALL=$small compute-sanitizer --tool $tool --error-exitcode 1 $b --gtest_filter=$filter" >>"$log"
  local t0
  t0=$(date +%s)
  (cd "$(dirname "$b")" && SCANKIT_TEST_SMALL="$small" run_limited "$limit" "$sanitizer" --tool "$tool" \
    --error-exitcode 1 "$b" --gtest_filter="$filter") >"$TMP/run.log" 2>&1
  rc=$?
  local secs=$(( $(date +%s) - t0 ))
  cat "$TMP/run.log" >>"$log"
  echo "### $tool $label: exit $rc after ${secs}s" >>"$log"
  local errors tests none="" ok=0
  errors=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$TMP/run.log" | tail -n 1 | sed 's/^=* *//')
  tests=$(grep -E '^\[  (PASSED|FAILED)  \] [0-9]+ tests?' "$TMP/run.log" | tr '\n' ' ' | sed 's/ *$//')
  if grep -qE '^\[  PASSED  \] 0 tests' "$TMP/run.log"; then
    none=" | the filter matched no test"; ok=1
  fi
  if (( rc == 124 || rc == 137 )); then
    add "sanitizer $tool $label: TIMED OUT after ${limit}s (${errors:-no error summary})"
  else
    add "sanitizer $tool $label: ${errors:-no ERROR SUMMARY line} | ${tests:-no gtest result} | exit $rc, ${secs}s$none"
  fi
  (( rc != 0 )) && ok=1
  return $ok
}

step_sanitizer() {
  local sanitizer tools lines=() line log="$OUTDIR/sanitizer.log"
  tools=${SANITIZER_TOOLS:-"memcheck racecheck synccheck"}
  if ! sanitizer=$(find_sanitizer); then
    add "sanitizer: compute-sanitizer NOT FOUND"; fail_step sanitizer; return
  fi
  while IFS= read -r line; do [[ -n "$line" ]] && lines+=("$line"); done < <(sanitizer_binaries)
  if (( ${#lines[@]} == 0 )); then
    add "sanitizer: no cases labelled sanitize in $BUILD_DIR (ctest -L sanitize -N)"; fail_step sanitizer; return
  fi
  for line in "${lines[@]}"; do
    local cases=${line#*$'\t'}
    add "sanitizer: $(basename "${line%%$'\t'*}") runs $(( $(tr -cd ':' <<<"$cases" | wc -c) + 1 )) cases"
  done
  start_log "$log"
  # Small sizes under the sanitizers (the compaction tests read it; the caller's value wins).
  local small=${SCANKIT_TEST_SMALL-1}
  local tool reserve
  reserve=$(reserve_after sanitizer)
  # Tools in SANITIZER_SPLIT run each case of a binary on its own: several slow cases in one run
  # can pass the limit together and leave no summary for any of them.
  local split=" ${SANITIZER_SPLIT:-} "
  for tool in $tools; do
    local tool_ok=1
    for line in "${lines[@]}"; do
      local b=${line%%$'\t'*} filter=${line#*$'\t'} name
      name=$(basename "$b")
      if [[ ! -x "$b" ]]; then
        echo "### $tool $name: $b not found" >>"$log"
        add "sanitizer $tool $name: BINARY NOT FOUND ($b)"; tool_ok=0; continue
      fi
      if [[ "$split" == *" $tool "* && "$filter" != *-* ]]; then  # a negative filter stays whole
        local one parts=()
        IFS=: read -ra parts <<<"$filter"
        for one in "${parts[@]}"; do sanitize_run "$tool" "$b" "$one" "$name $one" || tool_ok=0; done
      else
        sanitize_run "$tool" "$b" "$filter" "$name" || tool_ok=0
      fi
    done
    (( tool_ok )) || fail_step "sanitizer:$tool"
  done
}

# ---------------------------------------------------------------------------------------------
# Step: the benchmarks.

# SCANKIT_COMMIT for the JSON of this repository's build: git HEAD (-dirty) unless set.
ensure_commit() {
  [[ -n "${SCANKIT_COMMIT:-}" ]] && return 0
  local head
  if head=$(git -C "$REPO" rev-parse --short=12 HEAD 2>/dev/null); then
    [[ -n "$(git -C "$REPO" status --porcelain --untracked-files=no 2>/dev/null)" ]] && head="$head-dirty"
    export SCANKIT_COMMIT="$head"
  fi
}

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
  ensure_commit
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
  # int32 at 2^20, 2^24, 2^28: copy, CUB and the four strategies with the warp-of-warps block scan;
  # int8 and int16 at 2^28: every row (copy, both CUB anchors, scankit), for vs_cub and vs_cub_scan.
  local table
  table=$(awk '
    /^== bench_scan summary/ { on = 1; next }
    on && $1 == "kind" { header = $0; next }
    on && ($4 == "int32") && ($5 == 1048576 || $5 == 16777216 || $5 == 268435456) &&
      ($1 == "copy" || $1 == "cub" || $3 == "warp_of_warps") { print; next }
    on && ($4 == "int8" || $4 == "int16") && $5 == 268435456 { print }
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
# Step: compare two builds (BEFORE_BUILD_DIR = old, BUILD_DIR = new), benchmark by benchmark, in
# alternating runs of one call; scripts/compare_bench.py makes the table.
step_compare() {
  local log="$OUTDIR/compare.log" merged="$OUTDIR/compare.json"
  local old_dir=${BEFORE_BUILD_DIR:-} rounds=${COMPARE_ROUNDS:-2}
  local benches=${COMPARE_BENCHES:-"bench_scan bench_compact"}
  if [[ -z "$old_dir" ]]; then
    add "compare: BEFORE_BUILD_DIR not set (the old build folder)"; fail_step compare; return
  fi
  [[ "$old_dir" == /* ]] || old_dir="$PWD/$old_dir"
  if [[ ! -d "$old_dir" ]]; then
    add "compare: BEFORE_BUILD_DIR $old_dir not found"; fail_step compare; return
  fi
  bridge_build_paths "$old_dir"
  if [[ ! "$rounds" =~ ^[1-9][0-9]*$ ]]; then
    add "compare: COMPARE_ROUNDS must be a positive integer (got '$rounds')"; fail_step compare; return
  fi
  local python
  if ! python=$(command -v python3); then
    add "compare: python3 NOT FOUND (compare_bench.py needs it)"; fail_step compare; return
  fi
  start_log "$log"
  ensure_commit
  local new_commit=${SCANKIT_COMMIT:-}
  local bench ok_benches=()
  for bench in $benches; do
    if [[ ! -x "$old_dir/bench/$bench" ]]; then
      add "compare: $bench left out: $old_dir/bench/$bench NOT FOUND"
    elif [[ ! -x "$BUILD_DIR/bench/$bench" ]]; then
      add "compare: $bench left out: $BUILD_DIR/bench/$bench NOT FOUND"
    else
      ok_benches+=("$bench")
    fi
  done
  if (( ${#ok_benches[@]} == 0 )); then
    add "compare: no benchmark binary in both builds"; fail_step compare; return
  fi
  add "compare: old $old_dir (${BEFORE_COMMIT:-its build commit}), new $BUILD_DIR (${new_commit:-its build commit}); $rounds rounds of ${ok_benches[*]}"
  mkdir -p "$TMP/compare"
  local reserve want=${COMPARE_RUN_TIMEOUT:-150} round side step_ok=1 stopped=0
  reserve=$(reserve_after compare)
  local old_files=() new_files=()
  for (( round = 1; round <= rounds && !stopped; round++ )); do
    for bench in "${ok_benches[@]}"; do
      (( stopped )) && break
      for side in old new; do
        local dir=$BUILD_DIR filter=""
        [[ "$side" == old ]] && dir=$old_dir
        case "$bench" in
          bench_scan) filter=${COMPARE_FILTER-'/268435456|/65536'} ;;
          bench_compact) filter=${COMPARE_COMPACT_FILTER:-} ;;
          bench_sort) filter=${COMPARE_SORT_FILTER-'^(u8|u16|u32|u32_u32|u64|u64_u64|f32|argsort_f32_i32)/(copy|cub|scankit_onesweep|scankit_total_order)/'} ;;
        esac
        local json="$TMP/compare/r$round.$side.$bench.json"
        local args=(--benchmark_out="$json" --benchmark_out_format=json)
        [[ -n "$filter" ]] && args+=(--benchmark_filter="$filter")
        # shellcheck disable=SC2206
        [[ -n "${COMPARE_ARGS:-}" ]] && args+=(${COMPARE_ARGS})
        local limit
        limit=$(step_limit "$want" "$reserve")
        if too_little "$limit" "$want" 20; then
          add "compare: round $round $side $bench and later runs NOT RUN (no time left)"
          stopped=1; step_ok=0; break
        fi
        local env_commit=(env -u SCANKIT_COMMIT)
        if [[ "$side" == new && -n "$new_commit" ]]; then
          env_commit=(env SCANKIT_COMMIT="$new_commit")
        elif [[ "$side" == old && -n "${BEFORE_COMMIT:-}" ]]; then
          env_commit=(env SCANKIT_COMMIT="$BEFORE_COMMIT")
        fi
        say "compare: round $round $side $dir/bench/$bench ${args[*]} (limit ${limit}s) -> $log"
        echo "### compare round $round $side $bench: $dir/bench/$bench ${args[*]}" >>"$log"
        local t0 rc secs rows
        t0=$(date +%s)
        run_limited "$limit" "${env_commit[@]}" "$dir/bench/$bench" "${args[@]}" >"$TMP/run.log" 2>&1
        rc=$?
        secs=$(( $(date +%s) - t0 ))
        cat "$TMP/run.log" >>"$log"
        echo "### compare round $round $side $bench: exit $rc after ${secs}s" >>"$log"
        rows=$(grep -E "^== $bench: [0-9]+ rows" "$TMP/run.log" | tail -n 1 | sed "s/^== $bench: //")
        if (( rc == 124 || rc == 137 )); then
          add "compare: round $round $side $bench: TIMED OUT after ${limit}s (its finished rows are used)"
        else
          add "compare: round $round $side $bench: ${rows:-no summary table} (exit $rc, ${secs}s)"
        fi
        (( rc == 0 )) || step_ok=0
        if [[ -s "$json" ]]; then
          if [[ "$side" == old ]]; then old_files+=("$json"); else new_files+=("$json"); fi
        fi
      done
    done
  done
  if (( ${#old_files[@]} == 0 || ${#new_files[@]} == 0 )); then
    add "compare: no JSON from one of the sides (old ${#old_files[@]}, new ${#new_files[@]})"
    fail_step compare; return
  fi
  local rc
  "$python" "$REPO/scripts/compare_bench.py" --threshold "${COMPARE_THRESHOLD:-0.01}" --merge "$merged" \
    --old "${old_files[@]}" --new "${new_files[@]}" >"$TMP/compare.txt" 2>&1
  rc=$?
  {
    echo "### compare_bench.py --threshold ${COMPARE_THRESHOLD:-0.01} (exit $rc)"
    cat "$TMP/compare.txt"
  } >>"$log"
  if [[ "${COMPARE_SUMMARY:-full}" == flagged && $rc -eq 0 ]]; then
    "$python" "$REPO/scripts/compare_bench.py" --threshold "${COMPARE_THRESHOLD:-0.01}" --only-flagged "$merged" \
      >"$TMP/compare.txt" 2>&1
  fi
  while IFS= read -r l; do add "$l"; done <"$TMP/compare.txt"
  if (( rc != 0 )); then
    add "compare: compare_bench.py failed (exit $rc)"; step_ok=0
  fi
  (( step_ok )) || fail_step compare
}

# ---------------------------------------------------------------------------------------------
# Extra steps, each one binary whose output goes to OUTDIR (not in the default STEPS):
#   tune     bench/tune_scan (a -DSCANKIT_BUILD_TUNING=ON build): shapes, back-off -> tune_scan.{log,json}
#   compact  bench/bench_compact: compaction against CUB                     -> bench_compact.{log,json}
#   lab      apps/scankit lab (LAB_ARGS, default --quick)                    -> OUTDIR/lab/, lab.log
#   segments bench/bench_segments: segmented scans, reductions, reduce-by-key -> bench_segments.{log,json}
#   cli      compute-sanitizer (memcheck, racecheck, synccheck) on `scankit scan --n $CLI_N`
#            (default 300000): every strategy x block algorithm of the precompiled int32 sum at 74
#            register tiles; 2000000 also reaches the staged kernel's L2 prefetch (more than 128
#            tiles of 32 KiB)                                  -> appended to sanitizer.log
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
  local sanitizer log="$OUTDIR/sanitizer.log" tool rc errors
  sanitizer=$(find_sanitizer) || { add "cli sanitizer: compute-sanitizer NOT FOUND"; fail_step cli; return; }
  start_log "$log"
  for tool in memcheck racecheck synccheck; do
    echo "### $tool cli: compute-sanitizer --tool $tool --error-exitcode 1 $BUILD_DIR/apps/scankit scan --n ${CLI_N:-300000} --repeat 1" >>"$log"
    run_limited 120 "$sanitizer" --tool "$tool" --error-exitcode 1 "$BUILD_DIR/apps/scankit" scan --n "${CLI_N:-300000}" \
      --repeat 1 >"$TMP/run.log" 2>&1
    rc=$?
    cat "$TMP/run.log" >>"$log"
    echo "### $tool cli: exit $rc" >>"$log"
    errors=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$TMP/run.log" | tail -n 1 | sed 's/^=* *//')
    add "sanitizer $tool scankit scan: ${errors:-no ERROR SUMMARY line} | exit $rc"
    (( rc == 0 )) || fail_step "cli:$tool"
  done
}

# Step: the Python package (built into $BUILD_DIR/python when nanobind was found): its tests on
# the GPU with torch and CuPy, then python/bench.py against torch and CuPy.
step_python() {
  if ! compgen -G "$BUILD_DIR/python/scankit/_scankit*.so" >/dev/null; then
    add "python: $BUILD_DIR/python/scankit has no compiled module (nanobind missing at build time): not run"
    fail_step python
    return
  fi
  local python
  python=$(command -v python3 || echo python3)
  PYTHONPATH="$BUILD_DIR/python" step_binary python_tests "$python" 400 -m pytest -q -p no:cacheprovider "$REPO/python/tests"
  PYTHONPATH="$BUILD_DIR/python" step_binary python_bench "$python" 300 "$REPO/python/bench.py" --json "$OUTDIR/python_bench.json"
}

# Every step runs binaries of the build folder: bridge it once for all.
bridge_build_paths
for step in $STEPS; do
  case "$step" in
    tests) step_tests ;;
    sanitizer) step_sanitizer ;;
    bench) step_bench ;;
    tune) step_binary tune_scan "$BUILD_DIR/bench/tune_scan" 200 --json "$OUTDIR/tune_scan.json" ;;
    compact) step_binary bench_compact "$BUILD_DIR/bench/bench_compact" 200 \
               --benchmark_out="$OUTDIR/bench_compact.json" --benchmark_out_format=json ;;
    lab) step_binary lab "$BUILD_DIR/apps/scankit" 400 lab ${LAB_ARGS:---quick} --out "$OUTDIR/lab" ;;
    compare) step_compare ;;
    cli) step_cli_sanitizer ;;
    sort) step_sort ;;
    segments) step_binary bench_segments "$BUILD_DIR/bench/bench_segments" 200 --benchmark_repetitions=1 \
                --benchmark_out="$OUTDIR/bench_segments.json" --benchmark_out_format=json ;;
    spmv) step_spmv ;;
    sampling) step_sampling ;;
    python) step_python ;;
    cg) step_binary bench_cg "$BUILD_DIR/bench/bench_cg" 200 --benchmark_repetitions=1 \
          --benchmark_out="$OUTDIR/bench_cg.json" --benchmark_out_format=json ;;
    *) add "unknown step '$step' (known: tests sanitizer bench compare tune compact lab cli sort segments spmv cg sampling python)"
       fail_step "$step" ;;
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
