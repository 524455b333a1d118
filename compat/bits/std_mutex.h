// compat/: libstdc++'s internal header defining std::mutex (and
// lock_guard and the lock tags, which stay std's), read with std::mutex
// renamed. dstd's own headers reach this one (bits/atomic_base.h includes it
// through bits/atomic_wait.h), so it only renames and never includes a dstd
// header; the std names come with the public header that brought it.
// bits/unique_lock.h, which bits/dstd_compat_begin.h reads ahead of any
// renaming, needs this header's lock tags, so here it is read afterwards.
#pragma once

#define _DSTD_COMPAT_READING_STD_MUTEX 1
#include <bits/dstd_compat_begin.h>
#include_next <bits/std_mutex.h>
#include <bits/dstd_compat_end.h>
#undef _DSTD_COMPAT_READING_STD_MUTEX
#include <bits/unique_lock.h>
