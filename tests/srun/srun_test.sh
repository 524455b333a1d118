#!/bin/sh
# srun_test.sh SRUN N PROGRAM [ARGS...]
#
# Runs a dstd program as a job of N tasks under SLURM's srun, with no
# dstdrun: brings up a one-machine cluster for this run
# (slurm_cluster.sh, in a new temporary directory), runs
#   SRUN --mpi=pmix -n N PROGRAM ARGS
# (srun options may come first in ARGS: a later --mpi=none wins), prints
# what the job printed, then one line:
#   srun status=S
# and, when the program said "node_fault: stopping node K at T ms" (the
# wall clock, tests/launch/node_fault.cpp), one more:
#   run ended E ms after node K was stopped
# then takes the cluster down. Exits 77 (CTest's skip) where the cluster
# cannot be made (SLURM or munge not installed, not root).
#
# Why: srun --mpi=pmix is the other launcher the README promises: each task
# takes its rank from PMIX_RANK and the job's size from SLURM_NTASKS, and
# the nodes exchange their addresses through the PMIx server of slurmd's
# step daemon (runtime/transport/wireup/pmix_source.cpp), then talk over
# ucx on TCP over loopback (UCX_TLS=tcp UCX_NET_DEVICES=lo, exported to
# the tasks as srun does with the whole environment; tests/CMakeLists.txt,
# dstd_ucx_test, says why loopback). A cluster per run, so nothing outlives the test; srun
# bounded by `timeout` below CTest's own, as mpirun_test.sh bounds mpirun.
# srun keeps its defaults otherwise (no --kill-on-bad-exit): when a node
# dies, the others must notice and end by themselves.
here=$(dirname "$0")
srun=$1
n=$2
shift 2
cluster=$(mktemp -d)
out=$(mktemp)
cleanup() {
  "$here/slurm_cluster.sh" down "$cluster" >/dev/null 2>&1
  rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 143' TERM INT
"$here/slurm_cluster.sh" up "$cluster"
up=$?
if [ "$up" -ne 0 ]; then
  exit "$up"
fi
# srun run inside another SLURM job would take its SLURM_JOB_ID and the
# like for a step of that job: none of the caller's SLURM_ variables.
for v in $(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\)=.*/\1/p'); do
  unset "$v"
done
. "$cluster/env"
UCX_TLS=tcp UCX_NET_DEVICES=lo timeout 100 "$srun" --mpi=pmix -n "$n" "$@" >"$out" 2>&1
status=$?
ended=$(date +%s%3N)
cat "$out"
echo "srun status=$status"
stopped=$(sed -n 's/^node_fault: stopping node \([0-9]*\) at \([0-9]*\) ms$/\1 \2/p' "$out" | head -n 1)
if [ -n "$stopped" ]; then
  set -- $stopped
  echo "run ended $((ended - $2)) ms after node $1 was stopped"
fi
