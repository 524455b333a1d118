// A lock on a home word for runtime code (the lock table of large atomics,
// the stop-state lock): the lock of dstd's mutex
// (include/dstd/bits/lock_word.hpp) over a home_word, so a waiter parks in
// the lock's line at its home (home_mutex.hpp) instead of spinning on a
// word that may live on another node.
//
// Taking a free lock is one compare-and-swap at the home; giving one nobody
// waits for is another (the word's states: home_mutex.hpp). No coherence
// actions: a caller that guards global data with it acquires after lock()
// and releases before unlock().
#pragma once

#include <cstdint>

#include "runtime/sync/home_word.hpp"

namespace dstd::rt {

class home_lock {
 public:
  void lock();
  void unlock();

 private:
  home_word<std::uint64_t> word_;
};

}  // namespace dstd::rt
