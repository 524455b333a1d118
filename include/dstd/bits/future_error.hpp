// Internal to <dstd/future>: future_errc, future_category(), future_error
// and their hooks into <system_error>.
//
// These are dstd's own types, not libstdc++'s (which live in <future>, a
// header compat/ shadows: docs/DESIGN.md §2.1), with libstdc++'s values,
// category name and messages, so a program prints the same text with and
// without compat/. The category is one object in static data, never
// destroyed: every node reads the same bytes and compares the same address.
#pragma once

#include <stdexcept>
#include <string>
#include <system_error>

namespace dstd {

enum class future_errc {
  future_already_retrieved = 1,
  promise_already_satisfied = 2,
  no_state = 3,
  broken_promise = 4,
};

}  // namespace dstd

template <>
struct std::is_error_code_enum<dstd::future_errc> : std::true_type {};

namespace dstd {

namespace detail {

class future_error_category final : public std::error_category {
 public:
  constexpr future_error_category() noexcept = default;
  const char* name() const noexcept override { return "future"; }
  std::string message(int e) const override {
    switch (static_cast<future_errc>(e)) {
      case future_errc::future_already_retrieved:
        return "Future already retrieved";
      case future_errc::promise_already_satisfied:
        return "Promise already satisfied";
      case future_errc::no_state:
        return "No associated state";
      case future_errc::broken_promise:
        return "Broken promise";
    }
    return "Unknown error";
  }
};

// Constant-initialized and never destroyed: a node that exits first must
// not take the category from under one still comparing codes.
union future_category_holder {
  constexpr future_category_holder() noexcept : category() {}
  ~future_category_holder() {}
  future_error_category category;
};
inline constinit future_category_holder future_category_instance;

}  // namespace detail

inline const std::error_category& future_category() noexcept {
  return detail::future_category_instance.category;
}

inline std::error_code make_error_code(future_errc e) noexcept {
  return {static_cast<int>(e), future_category()};
}

inline std::error_condition make_error_condition(future_errc e) noexcept {
  return {static_cast<int>(e), future_category()};
}

class future_error : public std::logic_error {
 public:
  explicit future_error(future_errc e) : future_error(make_error_code(e)) {}
  const std::error_code& code() const noexcept { return code_; }

 private:
  explicit future_error(std::error_code c)
      : std::logic_error("std::future_error: " + c.message()), code_(c) {}
  std::error_code code_;
};

namespace detail {

[[noreturn]] inline void throw_future_error(future_errc e) { throw future_error(e); }

}  // namespace detail

}  // namespace dstd
