# Sourced by the rdma tests' host side (rdma_batch.sh, two_guests.sh): exits
# 77 (CTest: skipped) with a message when this machine cannot boot the
# Soft-RoCE guest, and gives guest_skip_if_unstartable for the guest's own
# status and guest_wall_seconds (host wall time since it was sourced).
# Needs $rxe_vm (scripts/rxe-vm.sh).
guest_start=$EPOCHREALTIME
guest_wall_seconds() { awk -v a="$guest_start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }'; }
# DSTD_REQUIRE_RDMA_TESTS=1 (CI sets it) makes a skip a failure.
guest_skip() {
  echo "rdma test SKIPPED: $1 (run '$rxe_vm setup' once as root: it installs" \
       "qemu-system-x86 and prepares a Debian 12 guest kernel)"
  [ "${DSTD_REQUIRE_RDMA_TESTS:-0}" = 1 ] && { echo "DSTD_REQUIRE_RDMA_TESTS=1: a skip fails"; exit 1; }
  exit 77
}
# Only where rxe-vm.sh setup ran: without it, run would fetch a kernel and
# could boot a guest with whatever QEMU happens to be installed.
guest_cache=${RXE_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rxe-vm}
command -v qemu-system-x86_64 > /dev/null || guest_skip "no qemu-system-x86_64"
compgen -G "$guest_cache/kernel-*" > /dev/null || guest_skip "no prepared guest kernel in $guest_cache"
# rxe-vm.sh's status 125 (the guest could not be set up) and 2 (host-side
# setup or usage error) mean this machine cannot run the test, not a failure.
guest_skip_if_unstartable() {
  if [ "$1" -eq 125 ] || [ "$1" -eq 2 ]; then guest_skip "the Soft-RoCE guest could not start here"; fi
}
export RXE_VM_NO_INSTALL=1
