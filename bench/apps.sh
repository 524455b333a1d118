#!/usr/bin/env bash
# DRust's four applications (examples/apps), each as the plain std build,
# as the compat/ build run without dstdrun (one node, no launcher), and
# through dstdrun at 1, 2 and 4 nodes, then its tuned variant
# (examples/apps/tuned, NAME_tuned) through dstdrun at 1, 2 and 4 nodes:
# the median throughput of RUNS runs,
# its ratio to the plain build's, and per operation (each app prints how
# many it did) the faults, bytes fetched, diff bytes and messages of the
# whole run, summed over the nodes (dstdrun --stats=json). The checksum of
# every run must equal the plain build's: a run that differs stops the
# script with a non-zero status.
#
# usage: bench/apps.sh [--build DIR] [--runs N] [--size small|medium]
#   (default: build/, 5 runs, medium; small is what CI's tests use)
set -euo pipefail

build=build
runs=5
size=medium
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    *) echo "usage: bench/apps.sh [--build DIR] [--runs N] [--size small|medium]" >&2; exit 2 ;;
  esac
done
bin=$build/bin
[ -x "$bin/dstdrun" ] || { echo "apps.sh: no $bin/dstdrun (build first)" >&2; exit 2; }

# name|program|arguments
if [ "$size" = small ]; then
  apps=(
    "kvstore A|kvstore|--workload A --keys 2000 --ops 2000 --threads 4"
    "kvstore B|kvstore|--workload B --keys 2000 --ops 2000 --threads 4"
    "kvstore C|kvstore|--workload C --keys 2000 --ops 2000 --threads 4"
    "gemm|gemm|--n 128 --block 32 --threads 4"
    "gemm strassen|gemm|--n 128 --block 32 --strassen"
    "dataframe|dataframe|--rows 20000 --customers 2000 --chunk 4096 --threads 4"
    "socialnet|socialnet|--users 200 --clients 4 --requests 200 --followees 5"
  )
else  # medium: each run at 2 or 4 nodes takes seconds on shm (docs/BENCHMARKS.md)
  apps=(
    "kvstore A|kvstore|--workload A --keys 20000 --ops 10000 --threads 4"
    "kvstore B|kvstore|--workload B --keys 20000 --ops 10000 --threads 4"
    "kvstore C|kvstore|--workload C --keys 20000 --ops 10000 --threads 4"
    "gemm|gemm|--n 256 --block 64 --threads 4"
    "gemm strassen|gemm|--n 256 --block 64 --strassen"
    "dataframe|dataframe|--rows 100000 --customers 10000 --chunk 16384 --threads 4"
    "socialnet|socialnet|--users 500 --clients 4 --requests 500 --followees 10"
  )
fi

stats=$(mktemp)
trap 'rm -f "$stats"' EXIT

field() {  # field NAME TEXT: the number after "NAME" in TEXT's line starting with NAME
  sed -n "s/^$1 \([0-9.]*\).*/\1/p" <<<"$2" | head -1
}
total() {  # total COUNTER: from the JSON's total object
  grep -o '"total": {[^}]*}' "$stats" | grep -o "\"$1\": [0-9]*" | grep -o '[0-9]*$'
}
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
per_op() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3g", (b > 0 ? a / b : 0)}'; }

printf '%-14s %-12s %14s %7s %10s %12s %12s %10s\n' app build throughput ratio "faults/op" "bytes/op" "diff B/op" "msgs/op"
for entry in "${apps[@]}"; do
  IFS='|' read -r name program args <<<"$entry"
  read -ra argv <<<"$args"
  plain_checksum=""
  plain_median=""
  for how in plain dstd n1 n2 n4 t1 t2 t4; do
    throughputs=()
    faults=- fetched=- diff=- messages=-
    for ((r = 0; r < runs; r++)); do
      case $how in
        plain) out=$("$bin/$program" "${argv[@]}") ;;
        dstd) out=$("$bin/${program}_dstd" "${argv[@]}") ;;
        n*) out=$("$bin/dstdrun" -n "${how#n}" --timeout 600 --stats=json "$stats" \
                  "$bin/${program}_dstd" "${argv[@]}") ;;
        t*) out=$("$bin/dstdrun" -n "${how#t}" --timeout 600 --stats=json "$stats" \
                  "$bin/${program}_tuned" "${argv[@]}") ;;
      esac
      checksum=$(field checksum "$out")
      [ -n "$plain_checksum" ] || plain_checksum=$checksum
      if [ "$checksum" != "$plain_checksum" ]; then
        echo "apps.sh: $name ($how) gave checksum $checksum, the plain build $plain_checksum" >&2
        exit 1
      fi
      throughputs+=("$(field throughput "$out")")
    done
    t=$(printf '%s\n' "${throughputs[@]}" | median)
    [ -n "$plain_median" ] || plain_median=$t
    ratio=$(awk -v a="$t" -v b="$plain_median" 'BEGIN {printf "%.3f", a / b}')
    if [[ $how == [nt]* ]]; then  # the last run's counters
      ops=$(field operations "$out")
      faults=$(per_op $(($(total read_faults) + $(total write_faults))) "$ops")
      fetched=$(per_op "$(total bytes_fetched)" "$ops")
      diff=$(per_op "$(total diff_bytes_sent)" "$ops")
      messages=$(per_op "$(total messages_sent)" "$ops")
    fi
    label=$how
    [[ $how == n* ]] && label="dstdrun -n ${how#n}"
    [[ $how == t* ]] && label="tuned -n ${how#t}"
    printf '%-14s %-12s %14s %7s %10s %12s %12s %10s\n' "$name" "$label" "$t" "$ratio" \
      "$faults" "$fetched" "$diff" "$messages"
  done
done
