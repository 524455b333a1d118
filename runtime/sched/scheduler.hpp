// The fiber scheduler of a node: worker OS threads run fibers (Boost.Context)
// taken from one ready queue; a fiber that waits parks, which frees its
// worker for other fibers.
//
// Why fibers: a dstd thread must be able to block on a lock, a join or a
// message from another node without holding an OS thread, and (later) move
// between nodes; its stack lives in the partition's stack area, so its
// locals are global addresses.
//
// Parking is a one-permit handshake: unpark() before park() makes that
// park() return at once, so a wake-up racing a wait is never lost. park()
// may also return spuriously (a sleep's timer firing just as something else
// woke the fiber leaves a permit): waiters re-check their condition.
#pragma once

#include <chrono>
#include <cstddef>

namespace dstd::rt::sched {

struct fiber;

using fiber_fn = void (*)(void*);
using clock = std::chrono::steady_clock;

// Starts the workers (0: DSTD_WORKERS, else one per core). Idempotent.
void start(unsigned workers = 0);
// Waits until no fiber is left, then stops the workers.
void stop();
unsigned worker_count();

// Runs fn(arg) on a new fiber of this node with a stack of at least
// `stack_bytes` (0: the default, 1 MiB or DSTD_STACK_KB).
void spawn(fiber_fn fn, void* arg, std::size_t stack_bytes = 0);

// The calling fiber, or nullptr on a thread that is not running a fiber.
fiber* current() noexcept;

// In a fiber: let other ready fibers run first.
void yield();
// In a fiber: wait until unpark(self) (returns at once if that came first).
void park();
// Any thread or fiber: make a parked fiber ready (or pre-empt its next park).
void unpark(fiber* f) noexcept;
// In a fiber: park until `deadline` (or an earlier unpark).
void sleep_until(clock::time_point deadline);

// Fibers ready to run or running on this node (the placement load metric).
unsigned runnable() noexcept;

}  // namespace dstd::rt::sched
