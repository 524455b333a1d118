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
. "$here/guest_prereqs.sh"
# The guest sees the host's / read-only but has its own /tmp, and mounts only
# the current directory (the build directory): the script goes there, so a
# checkout under /tmp works too (a clean-clone CI in /tmp found it missing).
cp "$here/in_guest.sh" ./rdma_in_guest.sh
"$rxe_vm" run bash ./rdma_in_guest.sh "${@:2}"
status=$?
echo "rdma batch: guest exit $status after $(guest_wall_seconds) s (host wall time, boot included)"
guest_skip_if_unstartable "$status"
exit "$status"
