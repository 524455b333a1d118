// See fork_guard.hpp.
#include "runtime/control/fork_guard.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <dlfcn.h>
#include <sys/types.h>

#include <atomic>
#include <boost/context/fiber.hpp>
#include <boost/context/preallocated.hpp>
#include <memory>
#include <mutex>

#include "runtime/heap/address_space.hpp"
#include "runtime/heap/group_heap.hpp"
#include "runtime/heap/partition.hpp"

extern "C" int __register_atfork(void (*prepare)(), void (*parent)(), void (*child)(),
                                 void* dso_handle);

namespace dstd::rt {

namespace {

// The pipe the child closes once its snapshot exists. Only the forking
// thread touches it, between prepare and parent/child.
int gate[2] = {-1, -1};
void (*child_hook)() = nullptr;

void prepare() {
  if (pipe2(gate, O_CLOEXEC) != 0) gate[0] = gate[1] = -1;
}

void in_parent() {
  if (gate[0] < 0) return;
  close(gate[1]);
  // EOF once the child has closed its end (or at once if fork failed).
  pollfd p{gate[0], POLLIN, 0};
  (void)poll(&p, 1, 10'000);
  close(gate[0]);
}

void in_child() {
  privatize_global_memory(partition_allocated_bytes(), group_area_used_bytes(),
                          stack_area_used_bytes());
  if (child_hook != nullptr) child_hook();
  if (gate[0] >= 0) {
    close(gate[0]);
    close(gate[1]);
  }
}

// fork() runs on this stack; one fork at a time.
constexpr std::size_t fork_stack_bytes = 256 * 1024;
alignas(64) unsigned char fork_stack[fork_stack_bytes];
std::mutex fork_lock;

using fork_fn = pid_t (*)();

fork_fn real_fork() {
  static const auto fn = reinterpret_cast<fork_fn>(dlsym(RTLD_NEXT, "fork"));
  return fn;
}

// Boost.Context's stack allocator interface over fork_stack.
struct fork_stack_allocator {
  boost::context::stack_context allocate() {
    boost::context::stack_context sc;
    sc.size = fork_stack_bytes;
    sc.sp = fork_stack + fork_stack_bytes;
    return sc;
  }
  void deallocate(boost::context::stack_context&) noexcept {}
};

pid_t fork_on_private_stack() {
  namespace ctx = boost::context;
  std::lock_guard<std::mutex> lock(fork_lock);
  pid_t pid = -1;
  ctx::fiber f(std::allocator_arg, fork_stack_allocator(), [&](ctx::fiber&& back) {
    pid = real_fork()();
    return std::move(back);
  });
  std::move(f).resume();
  return pid;
}

void register_guard_once() {
  static std::atomic<bool> done{false};
  if (!done.exchange(true)) __register_atfork(prepare, in_parent, in_child, nullptr);
}

}  // namespace

void set_fork_child_hook(void (*hook)()) {
  register_guard_once();
  child_hook = hook;
}

}  // namespace dstd::rt

extern "C" [[gnu::visibility("default")]] pid_t fork() {
  return dstd::rt::fork_on_private_stack();
}

// Every registration in the process passes through here (libdstd precedes
// libc in symbol lookup), so the guard is always registered first.
extern "C" [[gnu::visibility("default")]] int pthread_atfork(void (*prepare)(), void (*parent)(),
                                                            void (*child)()) {
  dstd::rt::register_guard_once();
  return __register_atfork(prepare, parent, child, nullptr);
}
