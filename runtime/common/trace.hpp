// The node's trace: what its threads did and when, for `dstdrun --trace`.
//
// Why: counters (dstdrun --stats) say how much a run faulted, fetched and
// waited, not when nor on which thread. A trace answers "where did the time
// go": per worker, which dstd thread ran, which faults it took (the page and
// its home), what its releases and acquires cost, how long it waited on a
// word, and which messages went where. dstdrun merges the nodes' traces into
// one Chrome/Perfetto JSON file (runtime/launch/trace_merge.*).
//
// How: DSTD_TRACE=FILE turns it on at boot, before any other thread runs.
// Every event goes into one ring per node, of DSTD_TRACE_EVENTS slots
// (default 65536, about 4 MiB): a fetch-and-add claims a slot, the oldest
// events are overwritten when it wraps, so memory is bounded whatever the
// run does. A slot is published by a sequence number written last, so the
// writer at exit skips a slot still being filled. Recording is safe in a
// signal handler (the fault handler records): no locks, no allocation.
// Off, each hook is one predictable branch on a global flag.
//
// Threads are told apart by pthread_self(): inside a fiber it still names
// the worker running it (fiber_tls.hpp), so a fiber's events land on its
// worker's track. Workers and the service thread name their tracks.
#pragma once

#include <cstdint>

namespace dstd::rt::trace {

enum class kind : std::uint32_t {
  run,      // a dstd thread ran on a worker; a: its waiter id
  fault,    // a page fault; a: page address, b: home node, c: 1 if a write
  release,  // a release that sent diffs; a: pages, b: diff bytes
  acquire,  // an acquire that dropped or refreshed pages; a: pages dropped, b: refreshed
  wait,     // a wait on a word (locks, condition variables, atomics' wait);
            // a: the word, b: its home, c: the waiter id
  handle,   // a message handled; a: handler name (a static string), b: from, c: bytes
  send,     // a message sent (an instant); a: handler name, b: to, c: bytes
};

namespace detail {
extern bool enabled;
void record(kind k, std::uint64_t start, std::uint64_t end, std::uint64_t a, std::uint64_t b,
            std::uint64_t c) noexcept;
}  // namespace detail

// Reads DSTD_TRACE (DSTD_TRACE_EVENTS is in settings.hpp); called once at boot, before any
// other thread runs. A bad value, or a file that cannot be written, is a
// fatal error. Under dstdrun the node writes a part for dstdrun to merge
// (FILE.node<N>, launch_contract.hpp), else the whole document to FILE.
void configure_from_env(unsigned node, bool under_launcher);

inline bool on() noexcept { return __builtin_expect(detail::enabled, false); }

// Nanoseconds on CLOCK_MONOTONIC (one clock for every node of a host).
std::uint64_t now() noexcept;

// An event that began at `start` (now() then) and ends now.
inline void span(kind k, std::uint64_t start, std::uint64_t a = 0, std::uint64_t b = 0,
                 std::uint64_t c = 0) noexcept {
  if (on()) detail::record(k, start, now(), a, b, c);
}

// An event without duration.
inline void instant(kind k, std::uint64_t a = 0, std::uint64_t b = 0, std::uint64_t c = 0) noexcept {
  if (on()) {
    const std::uint64_t t = now();
    detail::record(k, t, t, a, b, c);
  }
}

// A start time for span(): now() when tracing, else 0 (no clock read).
inline std::uint64_t start() noexcept { return on() ? now() : 0; }

// Names the calling thread's track ("worker", 3 -> "worker 3"; index < 0:
// the role alone). Workers call it as they start; a name given later to the
// same thread replaces the earlier one.
void name_this_thread(const char* role, int index) noexcept;

// At the end of the node: writes its events, oldest first, as
// configure_from_env chose. Does nothing when tracing is off.
void write_at_exit();
// The same, silently and safe in a signal handler, for a node about to die
// (fatal(), a stop or abort signal). The events are written once: the
// first of these calls writes, later ones return.
void write_before_dying() noexcept;

}  // namespace dstd::rt::trace
