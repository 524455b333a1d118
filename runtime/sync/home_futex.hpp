// A futex for the whole cluster: wait on a 64-bit word until someone wakes
// that address, with the wait queue kept at the word's home.
//
// Why at the home: every dstd blocking type (mutex, condition variable,
// latch, semaphore, atomic wait) is "change a word, then wake whoever waits
// on it". The word is a home word (home_word.hpp), so the home is the one
// place where "is it still the value I saw?" and "queue me" can be decided
// together: under the home's wait-table lock, which local callers take and
// the home's service thread takes for remote ones. A waker changes the word
// first and wakes second, so a waiter either sees the change or is queued
// before the wake looks at the queue.
//
// A waiter is queued by its name (node, id) and a ticket unique to this
// wait, and parks (scheduler.hpp). A wake goes through the one remote-unpark
// path (remote_wake.hpp), which leaves the ticket as the waiter's wake mark:
// that is how the waiter knows the wake was for this wait. A timed-out
// waiter takes itself off the queue, or, if a wake already took it, waits
// for that wake to land, so no wake is ever lost to a waiter that has gone.
//
// No coherence actions here: callers release before waking and acquire
// after waiting as their type requires.
#pragma once

#include <chrono>
#include <cstdint>

namespace dstd::rt::home_futex {

using clock = std::chrono::steady_clock;

// Parks until woken, unless the word at its home no longer holds `expected`
// (then returns at once). May return spuriously; callers re-check.
void wait(const std::uint64_t* word, std::uint64_t expected);
// As wait(), but gives up at `deadline`: false when it timed out.
bool wait_until(const std::uint64_t* word, std::uint64_t expected, clock::time_point deadline);

inline constexpr unsigned all = ~0u;
// Wakes up to `count` waiters of `word` (oldest first). Does not wait for a
// remote home to act: a wake is a message, delivered in order.
void wake(const std::uint64_t* word, unsigned count);

// Registers the futex's message handlers (called by
// register_runtime_handlers()).
void register_handlers();

}  // namespace dstd::rt::home_futex
