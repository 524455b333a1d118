// Internal to <dstd/future>: future<R> and shared_future<R>, the consumer
// ends of a shared state (bits/future_state.hpp), for R a value, a
// reference or void. A future is one owner of the state and may be moved to
// a thread on any node; shared_futures are copies that threads on many
// nodes may wait on and get() from at once.
#pragma once

#include <chrono>
#include <dstd/bits/future_error.hpp>
#include <dstd/bits/future_state.hpp>
#include <dstd/memory>
#include <type_traits>
#include <utility>

namespace dstd {

template <class R>
class future;
template <class R>
class shared_future;

namespace detail {

// now + d on the steady clock; a longer wait than a century (such as
// duration::max(), which would overflow the clock) waits a century.
template <class Rep, class Period>
std::chrono::steady_clock::time_point deadline_after(const std::chrono::duration<Rep, Period>& d) {
  constexpr std::chrono::hours century(24 * 365 * 100);
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(d) >= std::chrono::duration<double>(century)) {
    return now + century;
  }
  return now + std::chrono::ceil<std::chrono::steady_clock::duration>(d);
}

// What future and shared_future share: the state and the waits.
template <class R>
class future_base {
 public:
  [[nodiscard]] bool valid() const noexcept { return static_cast<bool>(state_); }

  void wait() const { checked().wait(); }
  template <class Rep, class Period>
  future_status wait_for(const std::chrono::duration<Rep, Period>& d) const {
    return checked().wait_until(deadline_after(d));
  }
  template <class Clock, class Duration>
  future_status wait_until(const std::chrono::time_point<Clock, Duration>& t) const {
    return checked().wait_until(t);
  }

 protected:
  using state_ptr = shared_ptr<future_state<R>>;

  future_base() noexcept = default;
  explicit future_base(state_ptr s) noexcept : state_(std::move(s)) {}

  // libstdc++ throws no_state where std leaves the call undefined.
  future_state<R>& checked() const {
    if (!state_) throw_future_error(future_errc::no_state);
    return *state_;
  }

  state_ptr state_;
};

// The result type of shared_future<R>::get().
template <class R>
struct shared_result {
  using type = const R&;
};
template <class R>
struct shared_result<R&> {
  using type = R&;
};
template <>
struct shared_result<void> {
  using type = void;
};
template <class R>
using shared_result_t = typename shared_result<R>::type;

}  // namespace detail

template <class R>
class future : public detail::future_base<R> {
 public:
  future() noexcept = default;
  future(future&&) noexcept = default;
  future& operator=(future&&) noexcept = default;
  future(const future&) = delete;
  future& operator=(const future&) = delete;

  [[nodiscard]] shared_future<R> share() noexcept { return shared_future<R>(std::move(*this)); }

  // Waits, then returns the result (moved out) or rethrows the exception;
  // valid() is false afterwards either way.
  R get() {
    this->checked();
    const typename detail::future_base<R>::state_ptr s = std::move(this->state_);
    s->wait();
    return s->take();
  }

 // Internal: how promise, packaged_task and async make their futures.
  explicit future(typename detail::future_base<R>::state_ptr s) noexcept
      : detail::future_base<R>(std::move(s)) {}

 private:
  friend class shared_future<R>;
};

template <class R>
class shared_future : public detail::future_base<R> {
 public:
  shared_future() noexcept = default;
  shared_future(const shared_future&) = default;
  shared_future(shared_future&&) noexcept = default;
  shared_future& operator=(const shared_future&) = default;
  shared_future& operator=(shared_future&&) noexcept = default;
  shared_future(future<R>&& f) noexcept : detail::future_base<R>(std::move(f.state_)) {}

  // Waits, then returns the stored result or rethrows the exception (a
  // copy of the stored pointer, made under the state's lock).
  detail::shared_result_t<R> get() const {
    detail::future_state<R>& s = this->checked();
    s.wait();
    return s.shared_result();
  }
};

}  // namespace dstd
