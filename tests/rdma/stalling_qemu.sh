#!/usr/bin/env bash
# A stand-in for qemu-system-x86_64, first on PATH in the CTest test
# rdma.rxe_vm.boot_retry: its first call stalls as a guest kernel that never
# reaches its init (the stall a CI run once hit), later calls run the real
# QEMU. STALLING_QEMU_COUNT names a file that counts the calls.
set -u
count=$(( $(cat "$STALLING_QEMU_COUNT" 2>/dev/null || echo 0) + 1 ))
echo "$count" > "$STALLING_QEMU_COUNT"
if [ "$count" -eq 1 ]; then
  echo "stalling_qemu.sh: call 1 stalls" >&2
  exec sleep 100000
fi
exec /usr/bin/qemu-system-x86_64 "$@"
