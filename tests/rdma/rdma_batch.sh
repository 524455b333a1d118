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
skip() {
  echo "rdma batch SKIPPED: $1 (run '$rxe_vm setup' once as root: it installs" \
       "qemu-system-x86 and prepares a Debian 12 guest kernel)"
  exit 77
}
# Only where rxe-vm.sh setup ran: without it, run would fetch a kernel and
# could boot a guest with whatever QEMU happens to be installed.
cache=${RXE_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rxe-vm}
command -v qemu-system-x86_64 > /dev/null || skip "no qemu-system-x86_64"
compgen -G "$cache/kernel-*" > /dev/null || skip "no prepared guest kernel in $cache"
# The guest sees the host's / read-only but has its own /tmp, and mounts only
# the current directory (the build directory): the script goes there, so a
# checkout under /tmp works too (a clean-clone CI in /tmp found it missing).
cp "$here/in_guest.sh" ./rdma_in_guest.sh
RXE_VM_NO_INSTALL=1 "$rxe_vm" run bash ./rdma_in_guest.sh "${@:2}"
status=$?
seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
echo "rdma batch: guest exit $status after ${seconds} s (host wall time, boot included)"
if [ "$status" -eq 125 ] || [ "$status" -eq 2 ]; then
  skip "the Soft-RoCE guest could not start here"
fi
exit "$status"
