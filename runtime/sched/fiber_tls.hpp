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
// Two exceptions keep per-worker state per worker: tcmalloc's thread cache
// (its TLS block is copied from the worker: a fresh one would make tcmalloc
// create a cache per fiber and lose the worker's), and rseq (the kernel
// updates only the worker's area; a fiber's copy says "not registered").
#pragma once

#include <cstddef>

namespace dstd::rt::sched {

struct fiber_tls {
  void* tp = nullptr;         // the fiber's thread pointer, once prepared
  void* worker_tp = nullptr;  // its worker's
  void* block = nullptr;      // the allocation that holds TLS area and control block
  void* dtv = nullptr;        // its dtv allocation (glibc may have moved it)
};

// On the worker that will run the fiber: (re)builds its TLS as a new
// thread's. The block is kept for the fiber's next life (a recycled fiber).
void prepare_fiber_tls(fiber_tls& t);
// Called first on the fiber itself: what glibc does for a new thread's TLS
// beyond copying images (the ctype table pointers).
void start_fiber_tls();
// Thread pointer switches around a resume of the fiber. Not inline: no
// thread-local address computed on one side may be reused on the other.
void enter_fiber_tls(const fiber_tls& t);
void leave_fiber_tls(const fiber_tls& t);

}  // namespace dstd::rt::sched
