#!/usr/bin/env bash
# The CTest test "rdma.verbs.two_guests": two Soft-RoCE guests, two "hosts"
# joined by one network link (scripts/rxe-vm.sh, RXE_VM_NETDEV=nic), each
# with rxe0 on its NIC. Guest B (192.0.2.2) serves guest_rsh.py, the ssh
# stand-in; guest A (192.0.2.1) runs dstdrun --hosts A:2,B:2 --transport
# verbs through it (two_guests_in_guest.sh says what it checks). Exit 77
# (CTest: skipped) when the guests cannot start here.
#
# usage: two_guests.sh RXE_VM DSTDRUN ACCUMULATOR OUTPUT_PROGRAM
# Run from a directory both guests may write to (the build directory): the
# logs land there as rdma-two-guests-*.log.
set -u
rxe_vm=$1
here=$(dirname "$(readlink -f "$0")")
. "$here/guest_prereqs.sh"
# Both guests mount only the current directory (and see the host's / read-only).
cp "$here/guest_rsh.py" ./rdma_guest_rsh.py
cp "$here/two_guests_in_guest.sh" ./rdma_two_guests_in_guest.sh
# A boot of two guests at once reaches init in about 10 s; a stalled one must
# be named before guest A gives up on B (guest_rsh.py waits 120 s).
export RXE_VM_NETDEV=nic RXE_VM_CPUS=${RXE_VM_CPUS:-2} RXE_VM_BOOT_TIMEOUT=${RXE_VM_BOOT_TIMEOUT:-60}
# One run of the pair: sets status (guest A's) and status_b. B first: it
# listens on the link.
run_pair() {
  rm -f rdma-two-guests.stop
  local link; link=$(mktemp -u "${TMPDIR:-/tmp}/dstd-rxe-link.XXXXXX")
  RXE_VM_LINK=$link RXE_VM_LINK_ROLE=server RXE_VM_IP=192.0.2.2/24 \
    "$rxe_vm" run bash ./rdma_two_guests_in_guest.sh serve > rdma-two-guests-b.log 2>&1 &
  local guest_b=$!
  RXE_VM_LINK=$link RXE_VM_LINK_ROLE=client RXE_VM_IP=192.0.2.1/24 \
    "$rxe_vm" run bash ./rdma_two_guests_in_guest.sh drive "$@" 2>&1 | tee rdma-two-guests-a.log
  status=${PIPESTATUS[0]}
  # A stops B's server when it is done; B must not outlive the test anyway.
  for _ in $(seq 1 300); do kill -0 $guest_b 2>/dev/null || break; sleep 0.1; done
  kill $guest_b 2>/dev/null
  wait $guest_b
  status_b=$?
  rm -f "$link"
  echo "===== guest B (192.0.2.2), exit $status_b:"
  cat rdma-two-guests-b.log
}
run_pair "${@:2}"
# A guest kernel that stalls before its init (rxe-vm.sh says "did not boot")
# is booted again by rxe-vm.sh, except on a link between two guests: the
# pair runs again instead, once.
if grep -q "the guest did not boot" rdma-two-guests-a.log rdma-two-guests-b.log; then
  echo "two guests: a guest did not boot; running the pair again"
  run_pair "${@:2}"
fi
echo "two guests: guest A exit $status, guest B exit $status_b after $(guest_wall_seconds) s (host wall time, boots included)"
guest_skip_if_unstartable "$status"
guest_skip_if_unstartable "$status_b"
[ "$status" -eq 0 ] && [ "$status_b" -eq 0 ]
