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
# The last column projects what the network would add per operation on an
# RDMA cluster (a projection, not a measurement; docs/BENCHMARKS.md): each
# fault costs its measured local handling (the run's fault_nanoseconds per
# fault) plus a 4 KiB RDMA read, each message half a round trip, each byte
# fetched or sent its time on the wire:
rdma_read_us=3     # one 4 KiB RDMA read, issue to completion
message_rtt_us=3   # a two-sided round trip through the peer's service thread
wire_gb_per_s=12.5 # 100 Gb/s
#
# The runs of one app go round the builds (plain, dstd, n1, plain, dstd,
# n1, ...), so a machine that slows down during the script slows every
# build alike.
#
# usage: bench/apps.sh [--build DIR] [--runs N] [--size small|medium|large]
#                      [--builds "plain dstd n1 n2 n4 t1 t2 t4"]
#   (nN: NAME_dstd under dstdrun -n N; tN: NAME_tuned under dstdrun -n N)
#   (default: build/, 5 runs, medium, every build; small is what CI's
#   tests use; large runs each app for about a second in one process, for
#   the one-node comparison, and defaults to --builds "plain dstd n1")
set -euo pipefail

usage="usage: bench/apps.sh [--build DIR] [--runs N] [--size small|medium|large] [--builds LIST]"
build=build
runs=5
size=medium
builds=""
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --builds) builds=$2; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
case $size in small|medium|large) ;; *) echo "$usage" >&2; exit 2 ;; esac
if [ -z "$builds" ]; then
  if [ "$size" = large ]; then builds="plain dstd n1"; else builds="plain dstd n1 n2 n4 t1 t2 t4"; fi
fi
read -ra how_list <<<"$builds"
[ "${how_list[0]}" = plain ] || { echo "apps.sh: --builds must start with plain (the reference)" >&2; exit 2; }
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
elif [ "$size" = large ]; then  # about a second per plain run: for one node only
  apps=(
    "kvstore A|kvstore|--workload A --keys 20000 --ops 5000000 --threads 4"
    "kvstore B|kvstore|--workload B --keys 20000 --ops 5000000 --threads 4"
    "kvstore C|kvstore|--workload C --keys 20000 --ops 5000000 --threads 4"
    "gemm|gemm|--n 1536 --block 64 --threads 4"
    "gemm strassen|gemm|--n 1536 --block 64 --strassen"
    "dataframe|dataframe|--rows 15000000 --customers 100000 --chunk 65536 --threads 4"
    "socialnet|socialnet|--users 2000 --clients 4 --requests 15000 --followees 10"
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
trap 'rm -f "$stats" "$stats".*' EXIT

field() {  # field NAME TEXT: the number after "NAME" in TEXT's line starting with NAME
  sed -n "s/^$1 \([0-9.]*\).*/\1/p" <<<"$2" | head -1
}
total() {  # total COUNTER: from the JSON's total object
  grep -o '"total": {[^}]*}' "$stats" | grep -o "\"$1\": [0-9]*" | grep -o '[0-9]*$'
}
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
per_op() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3g", (b > 0 ? a / b : 0)}'; }

printf '%-14s %-12s %14s %7s %10s %12s %12s %10s %12s\n' app build throughput ratio "faults/op" "bytes/op" "diff B/op" "msgs/op" "net us/op*"
run_once() {  # run_once HOW: one run of the app (program, argv set by the caller)
  case $1 in
    plain) "$bin/$program" "${argv[@]}" ;;
    dstd) "$bin/${program}_dstd" "${argv[@]}" ;;
    n*) "$bin/dstdrun" -n "${1#n}" --timeout 600 --stats=json "$stats.$1" "$bin/${program}_dstd" "${argv[@]}" ;;
    t*) "$bin/dstdrun" -n "${1#t}" --timeout 600 --stats=json "$stats.$1" "$bin/${program}_tuned" "${argv[@]}" ;;
    *) echo "apps.sh: unknown build '$1' (plain, dstd, nN or tN)" >&2; exit 2 ;;
  esac
}

for entry in "${apps[@]}"; do
  IFS='|' read -r name program args <<<"$entry"
  read -ra argv <<<"$args"
  plain_checksum=""
  declare -A throughputs=() last_out=()
  for ((r = 0; r < runs; r++)); do
    for how in "${how_list[@]}"; do
      out=$(run_once "$how")
      checksum=$(field checksum "$out")
      [ -n "$plain_checksum" ] || plain_checksum=$checksum
      if [ "$checksum" != "$plain_checksum" ]; then
        echo "apps.sh: $name ($how) gave checksum $checksum, the plain build $plain_checksum" >&2
        exit 1
      fi
      throughputs[$how]+="$(field throughput "$out") "
      last_out[$how]=$out
    done
  done
  plain_median=$(tr ' ' '\n' <<<"${throughputs[plain]}" | grep . | median)
  for how in "${how_list[@]}"; do
    t=$(tr ' ' '\n' <<<"${throughputs[$how]}" | grep . | median)
    ratio=$(awk -v a="$t" -v b="$plain_median" 'BEGIN {printf "%.3f", a / b}')
    faults=- fetched=- diff=- messages=- projected=-
    if [[ $how == [nt]* ]]; then  # the last run's counters
      cp "$stats.$how" "$stats"
      ops=$(field operations "${last_out[$how]}")
      faults=$(per_op $(($(total read_faults) + $(total write_faults))) "$ops")
      fetched=$(per_op "$(total bytes_fetched)" "$ops")
      diff=$(per_op "$(total diff_bytes_sent)" "$ops")
      messages=$(per_op "$(total messages_sent)" "$ops")
      projected=$(awk -v f="$faults" -v ns="$(total fault_nanoseconds)" \
        -v nf=$(($(total read_faults) + $(total write_faults))) -v m="$messages" \
        -v b="$fetched" -v d="$diff" -v r=$rdma_read_us -v rtt=$message_rtt_us -v bw=$wire_gb_per_s \
        'BEGIN {local = nf > 0 ? ns / nf / 1000 : 0;
                printf "%.3g", f * (local + r) + m * rtt / 2 + (b + d) / (bw * 1000)}')
    fi
    label=$how
    [[ $how == n* ]] && label="dstdrun -n ${how#n}"
    [[ $how == t* ]] && label="tuned -n ${how#t}"
    printf '%-14s %-12s %14s %7s %10s %12s %12s %10s %12s\n' "$name" "$label" "$t" "$ratio" \
      "$faults" "$fetched" "$diff" "$messages" "$projected"
  done
  unset throughputs last_out
done
echo "* projected for an RDMA cluster, not measured: see the top of bench/apps.sh"
