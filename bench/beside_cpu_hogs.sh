#!/usr/bin/env bash
# bench/beside_cpu_hogs.sh HOGS COMMAND [ARG...]: runs COMMAND while HOGS
# CPU-bound processes (`yes > /dev/null`) share the machine's cores, as
# batch jobs on a shared node would, and stops them when COMMAND ends.
# docs/BENCHMARKS.md, "Waiting beside CPU-bound threads", quotes it.
set -eu
if [ $# -lt 2 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 HOGS COMMAND [ARG...]" >&2
  exit 2
fi
hogs=$1
shift
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
for _ in $(seq "$hogs"); do
  yes > /dev/null &
  pids+=($!)
done
"$@"
