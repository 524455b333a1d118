// How a caller waits for the transport, in each context that may call it.
//
// Why here: a completion (completion.hpp) must park a fiber whose operation
// does not complete inline, so that its worker runs other fibers; but the
// scheduler sits above the transport. So the transport declares how a
// caller waits (this table of hooks) and the scheduler installs it when it
// starts. Until then, and off a fiber, a wait blocks the OS thread.
//
// The contexts (transport.hpp says which may call what):
//  * a fiber: a wait parks the fiber, unless it is inside a no_park_scope;
//  * a fault handler (coherence's SIGSEGV handler, which runs on whatever
//    fiber touched the page): a wait blocks the OS thread. Parking there
//    would switch stacks inside a signal handler, and the interrupted code
//    may hold locks a fiber scheduled next needs. The handler marks itself
//    with a no_park_scope;
//  * code holding a lock that another fiber of the same worker may ask for
//    (coherence's sync_mutex and page locks): a wait blocks the OS thread,
//    also through a no_park_scope, or that fiber would block the worker
//    that has to resume the lock's holder;
//  * the service thread and plain OS threads: a wait blocks the OS thread.
//    The service thread never waits for anything only it delivers (replies,
//    handlers): see transport.hpp.
// A network backend finishes operations only when someone progresses the
// network. It installs a progress driver (below), and every wait that
// blocks an OS thread drives progress instead of sleeping. Not only the
// service thread's: a thread that blocks holds something (a page lock in a
// fault handler, a runtime lock) that the service thread may be waiting
// for inside a handler, and then nobody else would finish its operation.
#pragma once

namespace dstd::rt::waiting {

struct park_hooks {
  void* (*current_fiber)() noexcept;  // the running fiber, or nullptr
  void (*park)();                     // park the running fiber; may return spuriously
  void (*unpark)(void* fiber) noexcept;
};

// The scheduler's hooks; installed once, before its first fiber runs.
void install(const park_hooks& hooks) noexcept;

// While one exists on a thread, waits there block the OS thread. Code inside
// one must not park by any other means either (the mark is per thread).
class no_park_scope {
 public:
  no_park_scope() noexcept;
  ~no_park_scope();
  no_park_scope(const no_park_scope&) = delete;
  no_park_scope& operator=(const no_park_scope&) = delete;
};

// For every thread: blocking waits call `drive(arg)` in a loop instead of
// sleeping. Install once, before any thread may wait on the backend. `drive`
// makes progress (or yields to the thread that is making it), on any
// thread, inside a fault handler too, and must not run handlers (they would
// nest inside the code that waits).
void set_progress_driver(void (*drive)(void*), void* arg) noexcept;
// Calls the progress driver; false when there is none.
bool drive_progress();

// The waiter a wait here would park, or nullptr: block the OS thread.
void* parkable_waiter() noexcept;
// Park the running fiber (only when parkable_waiter() gave it).
void park();
// Wake a waiter parkable_waiter() gave; any thread, any time (a late or
// early unpark is harmless: parked waiters re-check their condition).
void unpark(void* waiter) noexcept;

}  // namespace dstd::rt::waiting
