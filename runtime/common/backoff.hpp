// How the runtime waits for something another thread or node will do soon.
//
// Why spin, then yield, then sleep: a shm round trip takes about a
// microsecond, so sleeping at once would cost more than the wait. But
// machines may have fewer cores than runnable runtime threads (CI has two),
// and a thread that only spins steals the core from the one it waits for.
// Yielding hands the core over while staying responsive; only after that
// does the caller sleep on its futex.
#pragma once

#include <sched.h>

#include "runtime/common/futex.hpp"

namespace dstd::rt {

class backoff {
 public:
  // One step of waiting. Returns false once the caller should sleep.
  bool step() {
    if (rounds_ < spin_rounds) {
      futex::cpu_relax();
    } else if (rounds_ < spin_rounds + yield_rounds) {
      sched_yield();
    } else {
      return false;
    }
    ++rounds_;
    return true;
  }
  void reset() { rounds_ = 0; }

 private:
  static constexpr int spin_rounds = 64;
  static constexpr int yield_rounds = 256;
  int rounds_ = 0;
};

}  // namespace dstd::rt
