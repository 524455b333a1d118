// How the runtime waits for something another thread or node will do soon.
//
// Why spin, then yield, then sleep: a shm round trip takes about a
// microsecond, so sleeping at once would cost more than the wait. But
// machines may have fewer cores than runnable runtime threads (CI has two),
// and a thread that only spins steals the core from the one it waits for.
// Yielding hands the core over while staying responsive; only after that
// does the caller sleep on its futex.
//
// Why a late yield ends the yielding (yield_briefly): a yield is cheap only
// while the threads it lets run are as short-lived as the yielder. Beside a
// CPU-bound thread (another job on the core, or the program's own
// computation) Linux's EEVDF scheduler pushes a yielder's deadline out, and
// the yield comes back a slice of the other thread's time later (1.4 ms on
// average here, up to a 4 ms tick), on each of up to 256 yields. A sleeper
// pays that once, when the thread it waits for wakes it. With two `yes` on the two
// cores, two nodes alternating on a lock took 5.2 ms per turn when every
// waiter yielded 256 times, 2.6 ms when one late yield sends it to sleep
// (docs/BENCHMARKS.md, "Waiting beside CPU-bound threads").
#pragma once

#include <sched.h>

#include <cstdint>

#include "runtime/common/clock.hpp"
#include "runtime/common/futex.hpp"

namespace dstd::rt {

// Yields the core; false if the yield came back late: another thread held
// the core for more than `late_yield_ns`, so further yields would cost as
// much each, and the caller should sleep instead.
inline bool yield_briefly() {
  constexpr std::uint64_t late_yield_ns = 200'000;
  const std::uint64_t before = monotonic_ns();
  sched_yield();
  return monotonic_ns() - before <= late_yield_ns;
}

class backoff {
 public:
  // One step of waiting. Returns false once the caller should sleep: after
  // its spins and yields, or at once when a yield came back late.
  bool step() {
    if (rounds_ < spin_rounds) {
      futex::cpu_relax();
    } else if (rounds_ < spin_rounds + yield_rounds) {
      if (!yield_briefly()) {
        rounds_ = spin_rounds + yield_rounds;
        return false;
      }
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
