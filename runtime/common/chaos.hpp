// Schedule perturbation for tests: DSTD_CHAOS=SEED.
//
// Why: the races that lose updates live in windows of a few hundred
// nanoseconds between two steps of the runtime (a fetch and the list
// update after it, a page lock and the check under it, a send and its ack).
// Under an ordinary run they are rarely hit; random short delays at exactly
// those points make every interleaving the code allows likely, so a stress
// test run under DSTD_CHAOS finds in seconds what would otherwise take days.
//
// chaos::point() marks such a window. Off (DSTD_CHAOS unset), it is one
// predictable branch on a global flag. On, each call draws from a generator
// seeded by SEED and either returns at once, spins for a few microseconds,
// or yields the CPU. It is safe in a signal handler (no allocation, no
// locks: a global counter and clock_gettime). Runs with the same seed do not
// repeat exactly — threads still race — but keep the same mix of delays.
//
// chaos::stall(point) holds one named window open for a test, every time:
// DSTD_CHAOS_STALL_AT=NAME makes each pass through stall(NAME) sleep
// DSTD_CHAOS_STALL_MS milliseconds (default 100). Where a random delay
// makes a race likely, a stall makes it certain, so a regression test can
// fail on every run of the broken code.
#pragma once

#include <atomic>
#include <cstdint>

namespace dstd::rt::chaos {

// The named windows of stall(); `none` is the default.
enum class stall_point : unsigned {
  none,
  thread_finished,  // a dstd thread has marked itself finished (thread_start.cpp)
};

namespace detail {
extern bool enabled;
extern stall_point stalled;
void delay() noexcept;
void stall_now() noexcept;
}  // namespace detail

// Reads DSTD_CHAOS; called once at boot, before any other thread runs.
void configure_from_env();

// True when DSTD_CHAOS is set.
inline bool on() noexcept { return detail::enabled; }

// A race-prone point: maybe wait a little.
inline void point() noexcept {
  if (__builtin_expect(detail::enabled, false)) detail::delay();
}

// A window a test may hold open: maybe sleep (see the top).
inline void stall(stall_point where) noexcept {
  if (__builtin_expect(detail::stalled == where, false)) detail::stall_now();
}

}  // namespace dstd::rt::chaos
