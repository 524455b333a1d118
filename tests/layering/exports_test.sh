#!/usr/bin/env bash
# libdstd.so exports exactly the public API and the symbols it interposes
# (cmake/libdstd.version): every interposed symbol is there (a missing one
# is silently not interposed), and nothing else is, in particular nothing of
# the runtime's internals (dstd::rt).
# Usage: exports_test.sh path/to/libdstd.so
set -euo pipefail
lib="$1"

interposed=(
  malloc free calloc realloc reallocarray aligned_alloc memalign posix_memalign valloc
  pvalloc malloc_usable_size
  __libc_start_main exit quick_exit fork pthread_atfork sigaction signal
  __cxa_thread_atexit_impl
  sleep usleep nanosleep clock_nanosleep
  __cxa_guard_acquire __cxa_guard_release __cxa_guard_abort
  pthread_mutex_lock pthread_mutex_trylock pthread_mutex_timedlock pthread_mutex_clocklock
  pthread_mutex_unlock
  pthread_cond_wait pthread_cond_timedwait pthread_cond_clockwait pthread_cond_signal
  pthread_cond_broadcast
  pthread_rwlock_rdlock pthread_rwlock_tryrdlock pthread_rwlock_timedrdlock
  pthread_rwlock_clockrdlock pthread_rwlock_wrlock pthread_rwlock_trywrlock
  pthread_rwlock_timedwrlock pthread_rwlock_clockwrlock pthread_rwlock_unlock
  pthread_once pthread_barrier_wait pthread_spin_lock pthread_spin_trylock pthread_spin_unlock
  sem_wait sem_trywait sem_timedwait sem_clockwait sem_post sem_getvalue
  read pread pread64 readv preadv preadv64 write pwrite pwrite64 writev pwritev pwritev64
  recv recvfrom recvmsg send sendto sendmsg
  fread fread_unlocked fwrite fwrite_unlocked fputs fputs_unlocked puts
  open open64 openat openat64 creat creat64 fopen fopen64 freopen freopen64
  stat lstat stat64 lstat64 fstatat fstatat64 access faccessat
  unlink unlinkat remove rename renameat mkdir mkdirat rmdir opendir chdir
  truncate readlink readlinkat symlink link chmod utimensat statvfs
  __read_chk __pread_chk __pread64_chk __recv_chk __recvfrom_chk __fread_chk
  __fread_unlocked_chk __readlink_chk __readlinkat_chk __open_2 __open64_2 __openat_2 __openat64_2
  "operator new(unsigned long)" "operator new[](unsigned long)"
  "operator delete(void*)" "operator delete[](void*)"
  "tc_get_sysalloc_override(SysAllocator*)"
)
# The public API: names in namespace dstd, outside dstd::rt.
public='^dstd::([^r]|r[^t]|rt[^:])'

exported=$(nm -D --defined-only -C "$lib" | cut -d' ' -f3-)
if [ -z "$exported" ]; then
  echo "FAIL: nm -D found no exported symbols in $lib"
  exit 1
fi

status=0
for name in "${interposed[@]}"; do
  if ! grep -qxF -- "$name" <<<"$exported"; then
    echo "FAIL: $name is not exported, so it does not interpose libc's"
    status=1
  fi
done

# Anything neither public nor interposed is a leak.
leaks=$(grep -vE "$public" <<<"$exported" | grep -vxF -f <(printf '%s\n' "${interposed[@]}") |
        grep -vE '^operator (new|delete)(\[\])?\(' || true)
if [ -n "$leaks" ]; then
  echo "FAIL: libdstd.so exports symbols that are neither public API nor interposed:"
  echo "$leaks" | sed 's/^/  /'
  status=1
fi
[ "$status" = 0 ] && echo "libdstd.so exports $(wc -l <<<"$exported") symbols, all public or interposed"
exit "$status"
