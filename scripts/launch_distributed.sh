#!/usr/bin/env bash
# Starts a scankit distributed program as one process per GPU of this host.
#
#   scripts/launch_distributed.sh [-n RANKS] [--grace SECONDS] [--] PROGRAM [ARGS...]
#
# Each process gets, in its environment:
#   SCANKIT_RANK         0 .. RANKS-1
#   SCANKIT_WORLD_SIZE   RANKS (default: every visible GPU, from nvidia-smi or CUDA_VISIBLE_DEVICES)
#   SCANKIT_DEVICE       the CUDA device of the rank (= the rank, among the visible devices)
#   SCANKIT_ID_FILE      a fresh file in a new temporary directory: rank 0 writes the NCCL unique
#                        id there and the others read it (scankit::distributed::exchange_unique_id_file)
#   NCCL_NVLS_ENABLE=0   NVLink multicast stays off (the lent GPU machines do not support it)
#
# Rank 0's standard output passes through untouched (bench_distributed writes its JSON rows
# there); everything else is prefixed with "[rank R]" on standard error. When a rank fails, the
# others get --grace seconds (default 30; their communicators time out on their own) before they
# are stopped. The exit status is the first failing rank's, or 0.
#
# Example (weak scaling of scan and sort at 2^28 keys per GPU on every GPU):
#   scripts/launch_distributed.sh build/bench/bench_distributed --keys-per-gpu 268435456
set -euo pipefail

ranks=""
grace=30
while [[ $# -gt 0 ]]; do
  case "$1" in
    -n) ranks="$2"; shift 2 ;;
    --grace) grace="$2"; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
if [[ $# -lt 1 ]]; then
  echo "launch_distributed.sh: no program given (--help)" >&2
  exit 2
fi

if [[ -z "$ranks" ]]; then
  if [[ -n "${CUDA_VISIBLE_DEVICES:-}" ]]; then
    IFS=, read -r -a visible <<< "$CUDA_VISIBLE_DEVICES"
    ranks=${#visible[@]}
  elif command -v nvidia-smi > /dev/null; then
    ranks=$(nvidia-smi -L | grep -c '^GPU ')
  else
    echo "launch_distributed.sh: cannot count the GPUs (no nvidia-smi); pass -n" >&2
    exit 2
  fi
fi
if ! [[ "$ranks" =~ ^[1-9][0-9]*$ ]]; then
  echo "launch_distributed.sh: bad rank count '$ranks'" >&2
  exit 2
fi

id_dir=$(mktemp -d -t scankit-nccl-id.XXXXXX)
# Each rank runs under a small subshell that records the program's pid and, when it ends, its
# exit status (files in id_dir), so that this script can stop the program itself and tell which
# rank failed first.
stop_all() {
  for ((r = 0; r < ranks; ++r)); do
    if [[ -f "$id_dir/pid.$r" && ! -f "$id_dir/rc.$r" ]]; then kill "$(cat "$id_dir/pid.$r")" 2> /dev/null || true; fi
  done
}
cleanup() {
  stop_all
  wait || true
  rm -rf "$id_dir"
}
trap cleanup EXIT

export NCCL_NVLS_ENABLE=0
export SCANKIT_WORLD_SIZE="$ranks"
export SCANKIT_ID_FILE="$id_dir/nccl-unique-id"
run_rank() {
  local r=$1
  shift
  local rc=0
  SCANKIT_RANK=$r SCANKIT_DEVICE=$r "$@" &
  echo $! > "$id_dir/pid.$r"
  wait $! || rc=$?
  echo "$rc" > "$id_dir/rc.$r.tmp" && mv "$id_dir/rc.$r.tmp" "$id_dir/rc.$r"
}
for ((r = 0; r < ranks; ++r)); do
  if [[ $r -eq 0 ]]; then
    run_rank "$r" "$@" 2> >(sed -u "s/^/[rank $r] /" >&2) &
  else
    run_rank "$r" "$@" > >(sed -u "s/^/[rank $r] /" >&2) 2>&1 &
  fi
done

status=0
failed_at=""
seen=()
finished=0
while [[ $finished -lt $ranks ]]; do
  for ((r = 0; r < ranks; ++r)); do
    [[ -n "${seen[$r]:-}" || ! -f "$id_dir/rc.$r" ]] && continue
    seen[$r]=1
    finished=$((finished + 1))
    rc=$(cat "$id_dir/rc.$r")
    if [[ $rc -ne 0 && $status -eq 0 ]]; then
      status=$rc
      failed_at=$SECONDS
      echo "launch_distributed.sh: rank $r exited with $rc; the others get ${grace} s" >&2
    fi
  done
  if [[ -n "$failed_at" ]] && ((SECONDS - failed_at >= grace)); then
    stop_all
    failed_at=""
  fi
  sleep 0.2
done
exit "$status"
