#!/usr/bin/env bash
# Runs inside the rxe guest (scripts/rxe-vm.sh run): every test program given
# over the verbs transport at each node count, one after another, and says
# which passed and how long each took. Exit status 0 when all passed.
#
# usage: in_guest.sh DSTDRUN "2 4" PROGRAM[@GTEST_FILTER]...
# (a filter leaves out what cannot pass in the guest; tests/CMakeLists.txt
# says why for each)
set -u
dstdrun=$1
counts=$2
shift 2
echo "rdma batch: device ${RXE_VM_DEVICES:-?} at ${RXE_VM_IPS:-?}, $(nproc) vCPUs"
rdma link show 2>/dev/null || true
# Sizes for the emulated CPU: rxe reads about 30 MB/s here (coherence_test's
# 256 MiB array, read by 3 nodes, took 247 s at 4 nodes; 32 MiB still spans
# 8192 pages).
export DSTD_TEST_ARRAY_MIB=32
# Registered memory is pinned: no limit for the node processes.
ulimit -l unlimited 2>/dev/null || echo "note: cannot lift the locked-memory limit ($(ulimit -l) KiB)"
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
passed=0
failed=0
failures=""
batch_start=$EPOCHREALTIME
for spec in "$@"; do
  program=${spec%%@*}
  filter=()
  [ "$spec" != "$program" ] && filter=("--gtest_filter=${spec#*@}")
  for n in $counts; do
    name="$(basename "$program").verbs.${n}nodes"
    start=$EPOCHREALTIME
    "$dstdrun" -n "$n" --transport verbs --timeout 600 "$program" "${filter[@]}" > "rdma-$name.log" 2>&1
    status=$?
    seconds=$(since "$start")
    if [ "$status" -eq 0 ]; then
      passed=$((passed + 1))
      printf 'PASS %-40s %7s s\n' "$name" "$seconds"
    else
      failed=$((failed + 1))
      failures="$failures $name"
      printf 'FAIL %-40s %7s s (exit %d; last lines of rdma-%s.log:)\n' "$name" "$seconds" "$status" "$name"
      tail -n 25 "rdma-$name.log" | sed 's/^/    /'
    fi
  done
done
total=$(since "$batch_start")
printf 'rdma batch: %d passed, %d failed in %s s (guest time)%s\n' "$passed" "$failed" "$total" \
  "${failures:+; failed:$failures}"
[ "$failed" -eq 0 ]
