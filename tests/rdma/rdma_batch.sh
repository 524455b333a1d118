#!/usr/bin/env bash
# The CTest test "rdma.verbs.batch": boots ONE Soft-RoCE guest
# (scripts/rxe-vm.sh) and runs in it every given test program over the
# verbs transport (in_guest.sh), since a boot costs 10-20 s and the guest's
# CPU is emulated. Exit 77 (CTest: skipped) with a message when the guest
# cannot start here (no rxe-vm setup, no QEMU, no guest kernel).
#
# usage: rdma_batch.sh RXE_VM DSTDRUN "NODE COUNTS" PROGRAM...
# Run from a directory the guest may write to (the build directory): the
# node logs land there as rdma-PROGRAM.verbs.Nnodes.log.
set -u
rxe_vm=$1
here=$(dirname "$(readlink -f "$0")")
start=$EPOCHREALTIME
# rxe-vm.sh: 125 = the guest could not be set up, 2 = host-side setup or
# usage error; both mean this machine cannot run the batch, not a failure.
RXE_VM_NO_INSTALL=1 "$rxe_vm" run bash "$here/in_guest.sh" "${@:2}"
status=$?
seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
echo "rdma batch: guest exit $status after ${seconds} s (host wall time, boot included)"
if [ "$status" -eq 125 ] || [ "$status" -eq 2 ]; then
  echo "rdma batch SKIPPED: the Soft-RoCE guest could not start here (run" \
       "'$rxe_vm setup' once as root; it needs qemu-system-x86 and a Debian 12 guest kernel)"
  exit 77
fi
exit "$status"
