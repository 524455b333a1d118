#!/usr/bin/env bash
# bench/idle_cpu.sh BUILD_DIR [NODES] [TRANSPORT]: how much CPU the node
# processes of an idle run use (issue 18 item 5's target: under 1% of a core
# per node over 10 s). Starts `dstdrun -n NODES idle_bench 14`, which makes
# some traffic on every node and then sleeps; 3 s later it reads each node
# process's user+system time from /proc, again 10 s after that, and prints
# the difference per node as a share of one core. docs/BENCHMARKS.md quotes
# it.
set -eu
build=$(cd "$1" && pwd)
nodes=${2:-2}
transport=${3:-shm}
hz=$(getconf CLK_TCK)

"$build/bin/dstdrun" -n "$nodes" --transport "$transport" --timeout 60 "$build/bin/idle_bench" 14 &
launcher=$!
trap 'kill "$launcher" 2>/dev/null || true' EXIT
sleep 3

# The node processes: the launcher's children running idle_bench.
mapfile -t pids < <(pgrep -P "$launcher" -f idle_bench || true)
if [ "${#pids[@]}" -ne "$nodes" ]; then
  echo "idle_cpu: expected $nodes node processes under dstdrun ($launcher), found ${#pids[@]}" >&2
  exit 1
fi
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
declare -A before
for p in "${pids[@]}"; do before[$p]=$(ticks "$p"); done
sleep 10
for p in "${pids[@]}"; do
  after=$(ticks "$p")
  awk -v p="$p" -v d=$((after - ${before[$p]})) -v hz="$hz" -v t="$transport" \
    'BEGIN { printf "%s node process %s: %.2f%% of a core over 10 s (%d ticks of 1/%d s)\n", t, p, 100 * d / hz / 10, d, hz }'
done
wait "$launcher"
trap - EXIT
