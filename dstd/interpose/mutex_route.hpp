// pthread mutexes served by the cluster (route.hpp): the normal, recursive
// and error-checking kinds, as dstd's mutex (bits/lock_word.hpp: the 0/1/2
// futex word, lock acquires, unlock releases) laid over glibc's object.
//
// The layout stays glibc's where a zero initializer, pthread_mutex_init or
// a glibc lock and unlock before boot leave state: the lock word is the
// 8 bytes at offset 0 (glibc's __lock, 0/1/2, and __count, 0), so a mutex
// initialized, or used and released, before boot works after it; __kind
// (offset 16) is read as glibc wrote it. A recursive or error-checking
// mutex keeps its owner (a dstd thread id) in the 8 bytes at offset 8
// (__owner, __nusers) and its depth at offset 24 (__list, used by robust
// mutexes only). Robust, priority-inheriting and priority-protecting
// mutexes stay glibc's wherever they are.
//
// Why a header: pthread_cond_wait unlocks and relocks the caller's mutex
// on the caller's behalf, routed by the caller's return address.
#pragma once

#include <pthread.h>
#include <time.h>

#include <chrono>

namespace dstd::interpose {

// True when the cluster serves `m` for a caller at `return_address`.
bool mutex_on_cluster(const pthread_mutex_t* m, const void* return_address) noexcept;

// The cluster path of pthread_mutex_lock/unlock (callers checked
// mutex_on_cluster). 0 or an error number.
int cluster_mutex_lock(pthread_mutex_t* m, const std::chrono::steady_clock::time_point* until);
int cluster_mutex_unlock(pthread_mutex_t* m);

// Either path, as the program's call at `return_address` would take it.
int lock_mutex_for(pthread_mutex_t* m, const void* return_address);
int unlock_mutex_for(pthread_mutex_t* m, const void* return_address);

}  // namespace dstd::interpose
