// compat/ internal: the start of a libstdc++ header read through compat/.
// The outermost such header turns the renaming on (bits/dstd_rename_on.h);
// nested ones find it on already. push_macro/pop_macro keep the nesting:
// bits/dstd_compat_end.h pops, and only the outermost finds the flag unset
// afterwards. No include guard: every shadow includes this once per read.
#if __cplusplus < 202002L
#error "dstd's compat/ needs C++20 (-std=c++20 or later)"
#elif !__has_include(<bits/c++config.h>)
#error "dstd's compat/ works with libstdc++ (GCC's standard library) only"
#else
#include <bits/c++config.h>
#if _GLIBCXX_RELEASE != 12
#error "dstd's compat/ supports libstdc++ 12 (GCC 12) only: it renames definitions inside that version's headers"
#endif
#include <bits/gthr.h>
#if !_GTHREAD_USE_MUTEX_TIMEDLOCK || !_GLIBCXX_USE_PTHREAD_RWLOCK_T || !defined(_GLIBCXX_HAVE_LINUX_FUTEX)
#error "dstd's compat/ supports libstdc++ 12 on Linux with pthreads (timed mutexes, rwlocks, futexes)"
#endif
#endif

#if !defined(_DSTD_COMPAT_RENAMING) && !defined(_DSTD_COMPAT_READING_STD_MUTEX)
// Read before any renaming: unique_lock's member function mutex() must keep
// its name (the renaming works on words, and `mutex` is one of them).
// bits/std_mutex.h, which unique_lock.h needs first, reads it afterwards.
#include <bits/unique_lock.h>
#endif

#pragma push_macro("_DSTD_COMPAT_RENAMING")
#ifndef _DSTD_COMPAT_RENAMING
#define _DSTD_COMPAT_RENAMING 1
#include <bits/dstd_rename_on.h>
#endif
