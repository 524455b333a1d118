// The fiber scheduler of a node: worker OS threads run fibers (Boost.Context);
// a fiber that waits parks, which frees its worker for other fibers.
//
// Why fibers: a dstd thread must be able to block on a lock, a join or a
// message from another node without holding an OS thread; its stack lives
// in the partition's stack area, so its locals are global addresses.
//
// Where a fiber runs: a new fiber goes to whichever worker is free first,
// and once it has run it resumes on that worker (its caches are there),
// unless that worker is held by a fiber that does not come back (a blocking
// call): then the node's monitor hands it to another worker, and its
// thread-local storage takes that worker's descriptor and allocator cache
// (extra_workers.hpp, fiber_tls.hpp).
//
// Waiters: park/unpark work for any thread, not only fibers. A thread that
// is not running a fiber (main, a plain std::thread) parks by sleeping on a
// futex. Every waiter is a heap object that is never freed (fibers are
// recycled), so a late unpark of a waiter that stopped waiting is harmless.
// Each has an id, unique on its node (waiter_registry.hpp), by which other
// nodes name it (remote_wake.hpp).
//
// Parking is a one-permit handshake: unpark() before park() makes that
// park() return at once, so a wake-up racing a wait is never lost. park()
// may also return spuriously (a late unpark, a timer that fired as something
// else woke the waiter): waiters re-check their condition.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "runtime/sched/waiter_registry.hpp"

namespace dstd::rt::sched {

struct fiber;  // a waiter: a fiber or a thread that is not running one

using fiber_fn = void (*)(void*);
using clock = std::chrono::steady_clock;

// The number of workers this node runs (DSTD_WORKERS, else one per core);
// a bad DSTD_WORKERS is a fatal error.
unsigned configured_workers();

// Starts the workers (0: configured_workers()). Idempotent; spawn() calls it.
void start(unsigned workers = 0);
// Waits until no fiber is left, then stops the workers.
void stop();
unsigned worker_count();

// Runs fn(arg) on a new fiber of this node with a stack of at least
// `stack_bytes` (0: the default, 1 MiB or DSTD_STACK_KB). Safe on the
// transport's service thread (it does not block).
void spawn(fiber_fn fn, void* arg, std::size_t stack_bytes = 0);

// The calling fiber, or nullptr on a thread that is not running a fiber.
fiber* current() noexcept;
// The calling waiter: the running fiber, or the calling thread's waiter.
fiber* self();

// A pointer-sized slot per waiter for the layer above (dstd::thread keeps
// the running thread's identity there). Null for a new waiter.
void*& local_slot();

// Let other ready fibers (or, outside a fiber, threads) run first.
void yield();
// Wait until unpark(self()) (returns at once if that came first).
void park();
// Park until `deadline` or an earlier unpark.
void park_until(clock::time_point deadline);
// Any thread (the service thread too): wake a waiter of this node.
void unpark(fiber* f) noexcept;
// As unpark(), leaving `mark` with the waiter first. A waiter reads the last
// mark left with it through wake_mark(); a wait that must know whether its
// own wake came uses a mark no other wake carries (home_futex.cpp).
void unpark_with_mark(fiber* f, std::uint64_t mark) noexcept;
std::uint64_t wake_mark();
// The waiter's id on this node.
waiter_id id_of(fiber* f) noexcept;
// Sleep until `deadline` (unparks in between do not cut it short).
void sleep_until(clock::time_point deadline);

// Fibers ready to run or running on this node.
unsigned runnable() noexcept;

}  // namespace dstd::rt::sched
