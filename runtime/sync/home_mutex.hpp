// The contended paths of a lock word, served at the word's home: who gets
// the lock when several want it, with a bound on how often a waiter is
// passed over.
//
// The lock's state (include/dstd/bits/lock_word.hpp, home_lock.hpp), two
// bits of the word at `shift`: 0 free, 1 held, 2 held and contended (its
// unlock must come here), 3 free while a waiter woken without the lock
// comes back for it (taking it must come here). The word's other bits are
// its type's and are kept: a mutex has none (shift 0), a shared mutex's
// state is the gate its writers and waiting readers take (shift 0, readers
// above), a semaphore's the gate its waiting acquirers take (shift 62, the
// count below). The fast paths stay one compare-and-swap each (free->held
// to lock, held->free to unlock: a CPU atomic at home, one transport
// atomic elsewhere); everything else runs here, under the home's table
// lock, as a call from another node or a plain call on the home.
//
// Why at the home: with a futex lock (unlock stores 0, wakes one waiter,
// who then races for the word) the node that just unlocked re-takes the
// lock with one compare-and-swap long before a waiter on another node has
// even woken up: two nodes forced to alternate took 36 ms per hand-off,
// and a node re-taking a lock in a loop starved the others. Here the home
// sees the whole line at once. An unlock with waiters wakes the head of
// the line; until it is back, the lock may be taken by others (barging
// keeps a busy lock fast), but each of those counts as passing the head
// over, and after `max_passes` of them the next unlock gives the lock to
// the head directly (its wake says so, or the lock is held for it until it
// is back). A head that comes back and finds the lock taken is passed over
// no more: the next unlock gives it the lock. (Barging is worth it while
// the head is slow to come back; once it is back, a barger that wins again
// only sends it to sleep once more: two nodes alternating on a lock spent
// 16 round trips of the barging node per turn.) So a waiter at the head of
// the line gets the lock within max_passes + 1 acquisitions by others,
// however fast they are, and within one once it has come back.
//
// No coherence actions here: the mutex acquires after lock and releases
// before unlock.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace dstd::rt::home_mutex {

using clock = std::chrono::steady_clock;

// How many acquisitions by others the head of a lock's line lets pass.
inline constexpr unsigned max_passes = 16;

// The lock's states (the two bits at `shift`).
inline constexpr std::uint64_t free_word = 0, held = 1, contended = 2, coming_back = 3;

// Takes the lock whose state is at bit `shift` of `word` after its
// compare-and-swap free->held failed: true once held, false if `deadline`
// (when not null) passed first.
bool lock(std::uint64_t* word, unsigned shift, const clock::time_point* deadline);

// Gives the lock after its compare-and-swap held->free failed (the lock is
// contended). From another node, a message: it returns at once.
void unlock(std::uint64_t* word, unsigned shift);

// For tests, on the word's home: the waiters in the word's line (queued,
// or woken and on their way back).
std::size_t waiters_at_home(const std::uint64_t* word);

// Registers the lock's message handlers (register_runtime_handlers()).
void register_handlers();

}  // namespace dstd::rt::home_mutex
