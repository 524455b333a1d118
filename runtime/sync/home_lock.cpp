// See home_lock.hpp.
#include "runtime/sync/home_lock.hpp"

#include "runtime/sync/home_futex.hpp"

namespace dstd::rt {

namespace {

// The states of the word.
constexpr std::uint64_t unlocked = 0, held = 1, waited_for = 2;

}  // namespace

void home_lock::lock() {
  if (word_.compare_swap(unlocked, held) == unlocked) return;
  // Mark it waited for; whoever held it wakes one waiter when it gives it.
  while (word_.exchange(waited_for) != unlocked) home_futex::wait(word_.bits(), waited_for);
}

void home_lock::unlock() {
  if (word_.compare_swap(held, unlocked) == held) return;
  word_.store(unlocked);
  home_futex::wake(word_.bits(), 1);
}

}  // namespace dstd::rt
