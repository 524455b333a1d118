// Each fiber (each dstd thread) has its own thread pointer, so its
// thread_local variables, errno and the thread-local state of every library
// (libstdc++'s exception globals, libc's locale) are its own, at addresses
// no other live thread shares, as with std::thread.
//
// How (glibc, x86-64, where the thread pointer %fs points at the thread's
// control block and the static TLS area lies just below it): a fiber's block
// is a fresh static TLS area, every module initialized from its TLS image,
// followed by a copy of its worker's control block whose own-address field
// points at the copy, with its own table of module addresses (the dtv, which
// __tls_get_addr reads). Its `self` field still names the worker's real
// thread descriptor, so pthread_self(), pthread keys and anything glibc
// reaches through `self` stay the worker's (docs/DESIGN.md §5.1 lists what
// that means). The worker switches %fs to the fiber's block before resuming
// it and back after (wrfsbase, or arch_prctl where the kernel does not allow
// it).
//
// The copy's thread id is the fiber's own (a number above any kernel
// thread id, from the fiber's waiter id): glibc records a mutex's owner by
// the id in the descriptor, and two dstd threads that take turns on one
// worker must be two owners (a recursive mutex, an error-checking one, a
// rwlock's writer).
//
// Two exceptions keep per-worker state per worker: tcmalloc's thread cache
// (its TLS block is copied from the worker: a fresh one would make tcmalloc
// create a cache per fiber and lose the worker's), and rseq (the kernel
// updates only the worker's area; a fiber's copy says "not registered").
// So a fiber that resumes on another worker first takes that worker's
// (move_fiber_tls).
#pragma once

#include <cstddef>
#include <cstdint>

namespace dstd::rt::sched {

struct fiber_tls {
  void* tp = nullptr;         // the fiber's thread pointer, once prepared
  void* worker_tp = nullptr;  // its worker's
  void* block = nullptr;      // the allocation that holds TLS area and control block
  void* dtv = nullptr;        // its dtv allocation (glibc may have moved it)
};

// On the worker that will run the fiber: (re)builds its TLS as a new
// thread's, with thread id `tid` (fiber_thread_id). The block is kept for
// the fiber's next life (a recycled fiber).
void prepare_fiber_tls(fiber_tls& t, int tid);
// On a worker other than the one the fiber last ran on, before resuming
// it: takes this worker's descriptor (`self`) and allocator cache.
void move_fiber_tls(fiber_tls& t);
// The thread id a fiber's descriptor carries: distinct for every waiter id
// of the node and from every kernel thread id (those stay below 2^22).
int fiber_thread_id(std::uint64_t waiter_id);
// Called first on the fiber itself: what glibc does for a new thread's TLS
// beyond copying images (the ctype table pointers).
void start_fiber_tls();
// Thread pointer switches around a resume of the fiber. Not inline: no
// thread-local address computed on one side may be reused on the other.
void enter_fiber_tls(const fiber_tls& t);
void leave_fiber_tls(const fiber_tls& t);

}  // namespace dstd::rt::sched
