// Internal to <dstd/future>: promise<R> for a value, a reference or void.
// The promise makes the shared state (in the global heap, homed on the
// creating thread's node; an allocator given with allocator_arg is used for
// it) and may be moved to a thread on any node to be satisfied there.
// Destroying a promise that stored nothing breaks it: its future's get()
// throws future_error(broken_promise).
#pragma once

#include <dstd/bits/future.hpp>
#include <dstd/bits/future_state.hpp>
#include <dstd/bits/std_parts.hpp>
#include <dstd/memory>
#include <exception>
#include <utility>

namespace dstd {

namespace detail {

// Everything but set_value, which depends on the kind of R.
template <class R>
class promise_base {
 public:
  promise_base() : state_(make_shared<future_state<R>>()) {}
  template <class Alloc>
  promise_base(std::allocator_arg_t, const Alloc& a)
      : state_(allocate_shared<future_state<R>>(a)) {}
  promise_base(promise_base&&) noexcept = default;
  promise_base& operator=(promise_base&& o) noexcept {
    promise_base(std::move(o)).swap(*this);
    return *this;
  }
  promise_base(const promise_base&) = delete;
  promise_base& operator=(const promise_base&) = delete;
  ~promise_base() {
    if (state_) state_->abandon();
  }

  void swap(promise_base& o) noexcept { state_.swap(o.state_); }

  [[nodiscard]] future<R> get_future() {
    checked().retrieve();
    return future<R>(state_);
  }

  void set_exception(std::exception_ptr e) { checked().set_exception(std::move(e), false); }
  void set_exception_at_thread_exit(std::exception_ptr e) {
    checked().set_exception(std::move(e), true);
    ready_at_thread_exit::add(state_);
  }

 protected:
  // `make` returns the value; stored now, ready now or at thread exit.
  template <class Make>
  void set(Make&& make, bool at_thread_exit) {
    checked().set_value(make, at_thread_exit);
    if (at_thread_exit) ready_at_thread_exit::add(state_);
  }

 private:
  future_state<R>& checked() const {
    if (!state_) throw_future_error(future_errc::no_state);
    return *state_;
  }

  shared_ptr<future_state<R>> state_;
};

}  // namespace detail

template <class R>
class promise : public detail::promise_base<R> {
 public:
  using detail::promise_base<R>::promise_base;
  promise() = default;

  void set_value(const R& v) {
    this->set([&]() -> R { return v; }, false);
  }
  void set_value(R&& v) {
    this->set([&]() -> R { return std::move(v); }, false);
  }
  void set_value_at_thread_exit(const R& v) {
    this->set([&]() -> R { return v; }, true);
  }
  void set_value_at_thread_exit(R&& v) {
    this->set([&]() -> R { return std::move(v); }, true);
  }
};

template <class R>
class promise<R&> : public detail::promise_base<R&> {
 public:
  using detail::promise_base<R&>::promise_base;
  promise() = default;

  void set_value(R& v) {
    this->set([&]() -> R& { return v; }, false);
  }
  void set_value_at_thread_exit(R& v) {
    this->set([&]() -> R& { return v; }, true);
  }
};

template <>
class promise<void> : public detail::promise_base<void> {
 public:
  using detail::promise_base<void>::promise_base;
  promise() = default;

  void set_value() {
    this->set([] {}, false);
  }
  void set_value_at_thread_exit() {
    this->set([] {}, true);
  }
};

template <class R>
void swap(promise<R>& a, promise<R>& b) noexcept {
  a.swap(b);
}

}  // namespace dstd

template <class R, class Alloc>
struct std::uses_allocator<dstd::promise<R>, Alloc> : std::true_type {};
