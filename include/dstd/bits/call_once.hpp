// Internal to <dstd/sync>: once_flag and call_once. The flag is a home word
// (0 not run, 1 running, 2 done), so exactly one caller in the whole run
// runs the function; the others wait for it, then acquire what it wrote. If
// the function throws, the flag goes back to "not run" and one waiter tries.
#pragma once

#include <cstdint>
#include <dstd/atomic>
#include <functional>
#include <utility>

namespace dstd {

struct once_flag {
  constexpr once_flag() noexcept = default;
  once_flag(const once_flag&) = delete;
  once_flag& operator=(const once_flag&) = delete;

 private:
  template <class F, class... Args>
  friend void call_once(once_flag& flag, F&& f, Args&&... args);
  atomic<std::uint64_t> state_{0};
};

template <class F, class... Args>
void call_once(once_flag& flag, F&& f, Args&&... args) {
  constexpr std::uint64_t not_run = 0, running = 1, done = 2;
  auto& s = flag.state_;
  for (;;) {
    std::uint64_t seen = s.load(memory_order_relaxed);
    if (seen == done) {
      detail::sync_acquire();
      return;
    }
    if (seen == not_run && s.compare_exchange_strong(seen, running, memory_order_relaxed)) {
      try {
        std::invoke(std::forward<F>(f), std::forward<Args>(args)...);
      } catch (...) {
        s.store(not_run, memory_order_relaxed);
        detail::wake_waiters(s.ptr(), true);
        throw;
      }
      detail::sync_release();
      s.store(done, memory_order_relaxed);
      detail::wake_waiters(s.ptr(), true);
      return;
    }
    if (seen == running) detail::wait_while_equal(s.ptr(), 8, running);
  }
}

}  // namespace dstd
