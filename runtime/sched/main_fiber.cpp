// See main_fiber.hpp.
#include "runtime/sched/main_fiber.hpp"

#include <sys/resource.h>

#include <boost/context/fiber.hpp>
#include <memory>
#include <utility>

#include "runtime/heap/partition.hpp"

namespace dstd::rt {

namespace {

namespace ctx = boost::context;

// A Boost.Context stack allocator drawing from the partition's stack area.
class partition_stack {
 public:
  explicit partition_stack(std::size_t usable) : usable_(usable) {}

  ctx::stack_context allocate() {
    span_ = allocate_stack(usable_);
    ctx::stack_context sc;
    sc.size = span_.usable();
    sc.sp = reinterpret_cast<void*>(span_.top);
    return sc;
  }
  void deallocate(ctx::stack_context&) noexcept { release_stack(span_); }

 private:
  std::size_t usable_;
  stack_span span_;
};

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
