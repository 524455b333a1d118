// A spin lock usable inside the fault handler (a signal handler): no
// syscalls, no allocation. Held only for a few hundred nanoseconds.
#pragma once

#include <atomic>

namespace dstd::rt::coherence {

class spin_lock {
 public:
  void lock() noexcept {
    while (flag_.test_and_set(std::memory_order_acquire)) {
      while (flag_.test(std::memory_order_relaxed)) __builtin_ia32_pause();
    }
  }
  void unlock() noexcept { flag_.clear(std::memory_order_release); }

 private:
  std::atomic_flag flag_;
};

}  // namespace dstd::rt::coherence
