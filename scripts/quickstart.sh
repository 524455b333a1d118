#!/usr/bin/env bash
# dstd quick start for a fresh Debian 12 machine: installs the Debian packages
# dstd needs (only those missing), builds into build/, then either runs the
# demo on 4 nodes or runs the whole test suite.
#
#   scripts/quickstart.sh demo     # install, build, run the demo
#   scripts/quickstart.sh test     # install, build, run every test
#
# Extra CMake arguments can be passed in DSTD_CMAKE_ARGS (CI sets -Werror).
set -euo pipefail

mode=${1:-demo}
case "$mode" in
  demo|test) ;;
  *) echo "usage: $0 demo|test" >&2; exit 2 ;;
esac

cd "$(dirname "$0")/.."

# The tests also start a one-machine SLURM cluster (tests/srun/) and boot
# Soft-RoCE guests (tests/rdma/, scripts/rxe-vm.sh: QEMU, a guest kernel).
if [ "$mode" = test ]; then
  bash scripts/install-deps.sh slurmctld slurmd slurm-client munge \
    qemu-system-x86 busybox-static kmod cpio xz-utils ibverbs-providers ibverbs-utils \
    rdmacm-utils perftest python3-minimal
  bash scripts/rxe-vm.sh setup ||
    echo "quickstart: no Soft-RoCE guest here: the rdma tests will be skipped" >&2
else
  bash scripts/install-deps.sh
fi

jobs=$(nproc)
# shellcheck disable=SC2086  # DSTD_CMAKE_ARGS is a list of words
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release ${DSTD_CMAKE_ARGS:-}
cmake --build build -j"$jobs"

if [ "$mode" = demo ]; then
  # examples/apps/kvstore.cpp, a plain std program built with dstd::compat:
  # its 4 threads spread over 4 nodes; --stats prints what each node did.
  exec build/bin/dstdrun -n 4 --stats build/bin/kvstore_dstd --workload B --keys 10000 --ops 4000 --threads 4
else
  # The rdma tests run alone, after the others: their guests emulate a CPU
  # and take every core.
  status=0
  ctest --test-dir build --output-on-failure -j"$jobs" -LE rdma || status=$?
  ctest --test-dir build --output-on-failure -L rdma || status=$?
  exit "$status"
fi
