// Internal to <dstd/future>: packaged_task<R(Args...)>. The callable lives
// in the shared state (global heap), so the task may be moved to, and run
// by, a thread on any node; its future may wait on any other. Running it
// claims the state under its lock (a second run throws
// promise_already_satisfied), calls the function outside the lock, and
// publishes its result or what it threw.
#pragma once

#include <dstd/bits/future.hpp>
#include <dstd/bits/future_state.hpp>
#include <dstd/memory>
#include <functional>
#include <type_traits>
#include <utility>

namespace dstd {

namespace detail {

template <class R, class... Args>
class task_state_base : public future_state<R> {
 public:
  virtual void run(bool at_thread_exit, Args&&... args) = 0;
  // A new state holding this one's function (moved), for reset().
  virtual shared_ptr<task_state_base> renew() = 0;
};

template <class F, class R, class... Args>
class task_state final : public task_state_base<R, Args...> {
 public:
  template <class G>
  explicit task_state(G&& g) : fn_(std::forward<G>(g)) {}

  void run(bool at_thread_exit, Args&&... args) override {
    this->claim();
    this->publish_computed(
        [&]() -> R {
          if constexpr (std::is_void_v<R>) {
            std::invoke(fn_, std::forward<Args>(args)...);
          } else {
            return std::invoke(fn_, std::forward<Args>(args)...);
          }
        },
        at_thread_exit);
  }
  shared_ptr<task_state_base<R, Args...>> renew() override {
    return make_shared<task_state>(std::move(fn_));
  }

 private:
  F fn_;
};

// The signature a deduction guide finds in F::operator().
template <class M>
struct call_operator_signature {};
template <class G, class R, class... A, bool N>
struct call_operator_signature<R (G::*)(A...) noexcept(N)> {
  using type = R(A...);
};
template <class G, class R, class... A, bool N>
struct call_operator_signature<R (G::*)(A...) & noexcept(N)> {
  using type = R(A...);
};
template <class G, class R, class... A, bool N>
struct call_operator_signature<R (G::*)(A...) const noexcept(N)> {
  using type = R(A...);
};
template <class G, class R, class... A, bool N>
struct call_operator_signature<R (G::*)(A...) const & noexcept(N)> {
  using type = R(A...);
};

}  // namespace detail

template <class Signature>
class packaged_task;

template <class R, class... Args>
class packaged_task<R(Args...)> {
 public:
  packaged_task() noexcept = default;

  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, packaged_task> &&
             std::is_invocable_r_v<R, std::decay_t<F>&, Args...>)
  explicit packaged_task(F&& f)
      : state_(make_shared<detail::task_state<std::decay_t<F>, R, Args...>>(std::forward<F>(f))) {}

  packaged_task(packaged_task&&) noexcept = default;
  packaged_task& operator=(packaged_task&& o) noexcept {
    packaged_task(std::move(o)).swap(*this);
    return *this;
  }
  packaged_task(const packaged_task&) = delete;
  packaged_task& operator=(const packaged_task&) = delete;
  // A task destroyed before it ran breaks its promise.
  ~packaged_task() {
    if (state_) state_->abandon();
  }

  [[nodiscard]] bool valid() const noexcept { return static_cast<bool>(state_); }
  void swap(packaged_task& o) noexcept { state_.swap(o.state_); }

  [[nodiscard]] future<R> get_future() {
    checked().retrieve();
    return future<R>(state_);
  }

  void operator()(Args... args) { checked().run(false, std::forward<Args>(args)...); }
  void make_ready_at_thread_exit(Args... args) {
    checked().run(true, std::forward<Args>(args)...);
    detail::ready_at_thread_exit::add(state_);
  }

  // A new state with the same function; the old one's future, if the task
  // had not run, gets broken_promise.
  void reset() {
    packaged_task old;
    old.state_ = std::exchange(state_, checked().renew());
  }

 private:
  detail::task_state_base<R, Args...>& checked() const {
    if (!state_) detail::throw_future_error(future_errc::no_state);
    return *state_;
  }

  shared_ptr<detail::task_state_base<R, Args...>> state_;
};

template <class R, class... Args>
packaged_task(R (*)(Args...)) -> packaged_task<R(Args...)>;

template <class F>
packaged_task(F) -> packaged_task<
    typename detail::call_operator_signature<decltype(&F::operator())>::type>;

template <class Signature>
void swap(packaged_task<Signature>& a, packaged_task<Signature>& b) noexcept {
  a.swap(b);
}

}  // namespace dstd
