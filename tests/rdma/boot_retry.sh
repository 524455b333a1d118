#!/usr/bin/env bash
# The CTest test "rdma.rxe_vm.boot_retry": a guest whose first boot stalls
# before its init (tests/rdma/stalling_qemu.sh) is booted again by
# scripts/rxe-vm.sh, and the command runs in the second guest. Without the
# boot watchdog the run waits out its whole RXE_VM_TIMEOUT. Exit 77 (CTest:
# skipped) when the guest cannot start here.
#
# usage: boot_retry.sh RXE_VM
set -u
rxe_vm=$(readlink -f "$1")
here=$(dirname "$(readlink -f "$0")")
. "$here/guest_prereqs.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/dstd-boot-retry.XXXXXX")
trap 'rm -rf "$work"' EXIT
ln -s "$here/stalling_qemu.sh" "$work/qemu-system-x86_64"
cd "$work"
PATH="$work:$PATH" STALLING_QEMU_COUNT="$work/calls" RXE_VM_BOOT_TIMEOUT=20 RXE_VM_TIMEOUT=300 \
  "$rxe_vm" run bash -c 'echo "ran in the guest"' > out.log 2> err.log
status=$?
cat out.log err.log
guest_skip_if_unstartable "$status"
[ "$status" -eq 0 ] || { echo "FAIL: rxe-vm.sh exited $status"; exit 1; }
grep -q "ran in the guest" out.log || { echo "FAIL: the command's output is missing"; exit 1; }
grep -q "boot 1 of 3 stalled" err.log || { echo "FAIL: no word of the stalled boot"; exit 1; }
[ "$(cat calls)" -eq 2 ] || { echo "FAIL: QEMU started $(cat calls) times, not 2"; exit 1; }
echo "PASS: the stalled boot was retried"
