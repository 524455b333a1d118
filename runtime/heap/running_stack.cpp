// See running_stack.hpp.
#include "runtime/heap/running_stack.hpp"

#include <signal.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>

#include "runtime/common/fatal.hpp"
#include "runtime/common/layout.hpp"
#include "runtime/heap/address_space.hpp"

namespace dstd::rt {

namespace {

thread_local const stack_span* running = nullptr;
thread_local void* const* running_id = nullptr;

// Room for the fault handler, which may run a whole coherence fault (a
// transport round trip) on it; a guard page below.
constexpr std::size_t signal_stack_bytes = 256 * 1024;
constexpr std::size_t signal_map_bytes = signal_stack_bytes + layout::page_bytes;

// The calling thread's signal stack, taken down when the thread ends.
struct signal_stack {
  void* map = nullptr;
  ~signal_stack() {
    if (map == nullptr) return;
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
    munmap(map, signal_map_bytes);
  }
};
thread_local signal_stack own_signal_stack;

}  // namespace

void set_running_stack(const stack_span* stack, void* const* thread_id) noexcept {
  running = stack;
  running_id = thread_id;
}

void report_if_stack_overflow(std::uintptr_t fault) noexcept {
  const stack_span* stack = running;
  if (stack == nullptr || !stack->guards(fault)) return;
  const auto kib = static_cast<unsigned long long>(stack->usable() >> 10);
  // dstd::thread::id's value: (creating node + 1) << 40 | serial, printed as
  // operator<< prints it (include/dstd/thread).
  const auto id = running_id != nullptr ? reinterpret_cast<std::uint64_t>(*running_id) : 0;
  const unsigned node = ensure_address_space().self;
  if (id == 0) {  // main's fiber, whose id lives elsewhere
    fatal("stack overflow in thread main on node %u (stack %llu KiB; raise ulimit -s)",
          node, kib);
  }
  constexpr int serial_bits = 40;
  fatal("stack overflow in thread %llu.%llu on node %u (stack %llu KiB; raise DSTD_STACK_KB)",
        static_cast<unsigned long long>((id >> serial_bits) - 1),
        static_cast<unsigned long long>(id & ((std::uint64_t{1} << serial_bits) - 1)), node, kib);
}

void ensure_signal_stack() {
  if (own_signal_stack.map != nullptr) return;
  void* m = mmap(nullptr, signal_map_bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) fatal("cannot map a signal stack: %s", std::strerror(errno));
  own_signal_stack.map = m;
  if (mprotect(m, layout::page_bytes, PROT_NONE) != 0) {
    fatal("cannot protect a signal stack's guard page: %s", std::strerror(errno));
  }
  stack_t ss{};
  ss.ss_sp = static_cast<char*>(m) + layout::page_bytes;
  ss.ss_size = signal_stack_bytes;
  if (sigaltstack(&ss, nullptr) != 0) fatal("cannot set a signal stack: %s", std::strerror(errno));
}

}  // namespace dstd::rt
