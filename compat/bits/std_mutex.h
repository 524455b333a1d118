// compat/: libstdc++'s internal header defining std::mutex (and
// lock_guard and the lock tags, which stay std's), read with std::mutex
// renamed. dstd's own headers reach this one (bits/atomic_base.h includes it
// through bits/atomic_wait.h), so it only renames and never includes a dstd
// header; the std names come with the public header that brought it.
#pragma once

#include <bits/dstd_compat_begin.h>
#include_next <bits/std_mutex.h>
#include <bits/dstd_compat_end.h>
