// Internal to <dstd/sync>: once_flag and call_once. The flag is a home word
// (0 not run, 1 running, 2 done), so exactly one caller in the whole run
// runs the function; the others wait for it, then acquire what it wrote. If
// the function throws, the flag goes back to "not run" and one waiter tries.
#pragma once

#include <cstdint>
#include <dstd/atomic>
#include <functional>
#include <type_traits>
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

namespace detail {

// The once-only protocol on a word, in steps, for every initialize-once
// type: call_once here, and libdstd's __cxa_guard_* and pthread_once for
// objects in shared memory. The word goes not_run -> running -> done; other
// values count as "running" (another implementation's in-progress marks).
template <class T>
class once_gate {
 public:
  once_gate(atomic<T>& word, T not_run, T running, T done) noexcept
      : w_(word), not_run_(not_run), running_(running), done_(done) {}

  // True: the caller runs the initialization, then calls finish() or
  // abandon(). False: it is done, and the caller has acquired what it wrote.
  bool enter() {
    for (;;) {
      T seen = w_.load(memory_order_relaxed);
      if (seen == done_) {
        sync_acquire();
        return false;
      }
      if (seen == not_run_) {
        if (w_.compare_exchange_strong(seen, running_, memory_order_relaxed)) return true;
        continue;
      }
      wait_while_equal(w_.ptr(), sizeof(T),
                       static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(seen)));
    }
  }
  void finish() {
    sync_release();
    w_.store(done_, memory_order_relaxed);
    wake_waiters(w_.ptr(), true);
  }
  // The initialization threw: one waiter tries next.
  void abandon() {
    w_.store(not_run_, memory_order_relaxed);
    wake_waiters(w_.ptr(), true);
  }

 private:
  atomic<T>& w_;
  T not_run_, running_, done_;
};

}  // namespace detail

template <class F, class... Args>
void call_once(once_flag& flag, F&& f, Args&&... args) {
  detail::once_gate<std::uint64_t> gate(flag.state_, 0, 1, 2);
  if (!gate.enter()) return;
  try {
    std::invoke(std::forward<F>(f), std::forward<Args>(args)...);
  } catch (...) {
    gate.abandon();
    throw;
  }
  gate.finish();
}

}  // namespace dstd
