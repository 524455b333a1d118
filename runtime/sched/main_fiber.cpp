// See main_fiber.hpp.
#include "runtime/sched/main_fiber.hpp"

#include <sys/resource.h>

#include <boost/context/fiber.hpp>
#include <memory>
#include <utility>

#include "runtime/common/trace.hpp"
#include "runtime/heap/running_stack.hpp"
#include "runtime/sched/partition_stack.hpp"

namespace dstd::rt {

namespace {

namespace ctx = boost::context;

std::size_t main_stack_bytes() {
  constexpr std::size_t fallback = 8u << 20;
  rlimit limit{};
  if (getrlimit(RLIMIT_STACK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
      limit.rlim_cur > (1u << 30)) {
    return fallback;
  }
  return limit.rlim_cur < (1u << 20) ? (1u << 20) : limit.rlim_cur;
}

// The program's main may declare fewer parameters than the three passed
// here; glibc calls it the same way, and the x86-64 calling convention
// allows it. clang's UBSan function check would still call it a mismatch.
#if defined(__clang__)
__attribute__((no_sanitize("function")))
#endif
int call_program_main(main_fn main, int argc, char** argv, char** envp) {
  return main(argc, argv, envp);
}

}  // namespace

// The context function is noexcept so that an exception escaping main ends
// the program here, on main's fiber, with std::terminate reporting that
// exception, as it would without dstd. Without it the exception would leave
// the context function into Boost.Context's own noexcept entry: clang's code
// unwinds to there first, destroying the handle to the original stack
// (`back`), and that destructor unwinds the original stack with a
// boost::context::detail::forced_unwind, which is then what terminate
// reports. This fiber runs once to completion and is never destroyed while
// suspended, so no forced_unwind is ever sent into it.
int run_main_on_fiber(main_fn main, int argc, char** argv, char** envp) {
  int status = 0;
  stack_span stack;
  ctx::fiber fiber(std::allocator_arg, partition_stack(main_stack_bytes(), &stack),
                   [&](ctx::fiber&& back) noexcept {
                     status = call_program_main(main, argc, argv, envp);
                     return std::move(back);
                   });
  ensure_signal_stack();
  trace::name_this_thread("main", -1);
  set_running_stack(&stack, nullptr);
  std::move(fiber).resume();
  set_running_stack(nullptr, nullptr);
  return status;
}

}  // namespace dstd::rt
