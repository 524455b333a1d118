// Waiting for a wake queued at a home: park until the wake meant for this
// wait has left its mark, or give up at a deadline without losing it.
//
// Why shared: the cluster futex (home_futex.cpp) and the contended lock
// (home_mutex.cpp) both queue a waiter at a word's home under a mark no
// other wake carries (fresh_mark()), and both must end a timed wait the
// same way: take the entry back at the home, or, if a wake took it first,
// wait for that wake to land, so that no wake (and no lock handed over
// with it) is lost to a waiter that has gone.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "runtime/common/trace.hpp"
#include "runtime/sched/scheduler.hpp"
#include "runtime/transport/transport.hpp"

namespace dstd::rt {

// A mark for one wait, unique on this node: never 0 (no mark), always even,
// so a wake may also leave mark + 1 to say more (home_mutex.cpp: "the lock
// is yours").
inline std::uint64_t fresh_mark() {
  static std::atomic<std::uint64_t> marks{2};
  return marks.fetch_add(2, std::memory_order_relaxed);
}

// For dstdrun --trace: a wait's span, from queued to woken (or timed
// out), with the word, its home and the waiter.
struct traced_wait {
  const std::uint64_t* word;
  node_id home;
  sched::waiter_id waiter;
  std::uint64_t from = trace::start();
  ~traced_wait() {
    trace::span(trace::kind::wait, from, reinterpret_cast<std::uintptr_t>(word), home, waiter);
  }
};

// Parks until woken() says the wake for this wait landed (true), or, with
// a deadline, until it passes and unqueue() takes the wait back at the
// home (false). If unqueue() finds the entry gone, a wake is on its way:
// wait for it.
template <class Woken, class Unqueue>
bool park_until_marked(Woken&& woken, const std::chrono::steady_clock::time_point* deadline,
                       Unqueue&& unqueue) {
  while (!woken()) {
    if (deadline == nullptr) {
      sched::park();
      continue;
    }
    sched::park_until(*deadline);
    if (woken() || std::chrono::steady_clock::now() < *deadline) continue;
    if (unqueue()) return false;
    while (!woken()) sched::park();
  }
  return true;
}

}  // namespace dstd::rt
