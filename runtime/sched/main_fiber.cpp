// See main_fiber.hpp.
#include "runtime/sched/main_fiber.hpp"

#include <sys/resource.h>

#include <boost/context/fiber.hpp>
#include <memory>
#include <utility>

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

}  // namespace

int run_main_on_fiber(main_fn main, int argc, char** argv, char** envp) {
  int status = 0;
  ctx::fiber fiber(std::allocator_arg, partition_stack(main_stack_bytes()),
                   [&](ctx::fiber&& back) {
                     status = main(argc, argv, envp);
                     return std::move(back);
                   });
  std::move(fiber).resume();
  return status;
}

}  // namespace dstd::rt
