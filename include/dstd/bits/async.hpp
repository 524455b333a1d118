// Internal to <dstd/future>: async and launch.
//
// launch::async runs the function on a new dstd::thread, placed by load
// like any dstd::thread (docs/DESIGN.md §5.2), so asyncs spread over the
// nodes; the state owns that thread and joins it when the last future lets
// go of the state, so that future's destructor waits, as std's does.
// launch::deferred runs the function on the first thread that waits for the
// result (get() or wait()), on that thread's node. The default policy
// (async | deferred) is launch::async, as libstdc++ chooses, falling back to
// deferred only when no thread can be started. The decay-copied function
// and arguments live in the state, in the global heap.
#pragma once

#include <dstd/bits/future.hpp>
#include <dstd/bits/future_state.hpp>
#include <dstd/memory>
#include <dstd/thread>
#include <functional>
#include <system_error>
#include <tuple>
#include <type_traits>
#include <utility>

namespace dstd {

enum class launch { async = 1, deferred = 2 };

constexpr launch operator&(launch a, launch b) noexcept {
  return static_cast<launch>(static_cast<int>(a) & static_cast<int>(b));
}
constexpr launch operator|(launch a, launch b) noexcept {
  return static_cast<launch>(static_cast<int>(a) | static_cast<int>(b));
}
constexpr launch operator^(launch a, launch b) noexcept {
  return static_cast<launch>(static_cast<int>(a) ^ static_cast<int>(b));
}
constexpr launch operator~(launch a) noexcept {
  return static_cast<launch>(~static_cast<int>(a));
}
constexpr launch& operator&=(launch& a, launch b) noexcept { return a = a & b; }
constexpr launch& operator|=(launch& a, launch b) noexcept { return a = a | b; }
constexpr launch& operator^=(launch& a, launch b) noexcept { return a = a ^ b; }

namespace detail {

// A state that computes its own result from a stored call.
template <class R, class F, class... Args>
class call_state : public future_state<R> {
 protected:
  template <class G, class... A>
  call_state(bool deferred, G&& g, A&&... a)
      : future_state<R>(deferred), call_(std::forward<G>(g), std::forward<A>(a)...) {}

  void run_call() {
    this->publish_computed(
        [this]() -> R {
          return std::apply([](auto&... parts) -> R { return std::invoke(std::move(parts)...); },
                            call_);
        },
        false);
  }

 private:
  std::tuple<F, Args...> call_;
};

template <class R, class F, class... Args>
class deferred_state final : public call_state<R, F, Args...> {
 public:
  template <class... A>
  explicit deferred_state(A&&... a) : call_state<R, F, Args...>(true, std::forward<A>(a)...) {}

 private:
  void run_deferred() override { this->run_call(); }
};

template <class R, class F, class... Args>
class async_state final : public call_state<R, F, Args...> {
 public:
  template <class... A>
  explicit async_state(A&&... a)
      : call_state<R, F, Args...>(false, std::forward<A>(a)...),
        thread_([this] { this->run_call(); }) {}
  ~async_state() override {
    if (thread_.joinable()) thread_.join();
  }

 private:
  thread thread_;
};

}  // namespace detail

template <class F, class... Args>
[[nodiscard]] future<std::invoke_result_t<std::decay_t<F>, std::decay_t<Args>...>> async(
    launch policy, F&& f, Args&&... args) {
  using R = std::invoke_result_t<std::decay_t<F>, std::decay_t<Args>...>;
  if ((policy & launch::async) == launch::async) {
    try {
      return future<R>(make_shared<detail::async_state<R, std::decay_t<F>, std::decay_t<Args>...>>(
          std::forward<F>(f), std::forward<Args>(args)...));
    } catch (const std::system_error& e) {
      if (e.code() != std::errc::resource_unavailable_try_again ||
          (policy & launch::deferred) != launch::deferred) {
        throw;
      }
    }
  }
  return future<R>(make_shared<detail::deferred_state<R, std::decay_t<F>, std::decay_t<Args>...>>(
      std::forward<F>(f), std::forward<Args>(args)...));
}

template <class F, class... Args>
  requires(!std::is_same_v<std::decay_t<F>, launch>)
[[nodiscard]] future<std::invoke_result_t<std::decay_t<F>, std::decay_t<Args>...>> async(
    F&& f, Args&&... args) {
  return dstd::async(launch::async | launch::deferred, std::forward<F>(f),
                     std::forward<Args>(args)...);
}

}  // namespace dstd
