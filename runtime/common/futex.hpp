// Thin futex wrappers.
//
// Why: waiting without burning a core, both inside a process (completions)
// and across node processes on shared memory (doorbells, ring space), which
// std::atomic::wait cannot do across processes.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <ctime>

namespace dstd::rt::futex {

enum class scope { process_private, shared };

// Sleeps while *word == expected, at most timeout_ns (0: no limit).
inline void wait(std::atomic<std::uint32_t>& word, std::uint32_t expected, scope s,
                 std::uint64_t timeout_ns = 0) {
  timespec ts{static_cast<time_t>(timeout_ns / 1000000000u),
              static_cast<long>(timeout_ns % 1000000000u)};
  int op = s == scope::shared ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE;
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), op, expected,
          timeout_ns ? &ts : nullptr, nullptr, 0);
}

inline void wake_all(std::atomic<std::uint32_t>& word, scope s) {
  int op = s == scope::shared ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE;
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), op, 0x7fffffff, nullptr, nullptr,
          0);
}

// A polite busy-wait step.
inline void cpu_relax() { __builtin_ia32_pause(); }

}  // namespace dstd::rt::futex
