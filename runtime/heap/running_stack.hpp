// Which fiber stack the calling OS thread is running on, so that the SIGSEGV
// handler can tell a stack overflow (a fault in that stack's guard region)
// from any other fault and name the thread; and the alternate signal stack
// the handler needs to run at all when the fiber's own stack is exhausted.
//
// Why a per-OS-thread record rather than a search of the stack area: the
// handler runs in signal context (no locks), and stacks of different sizes
// share the area, so an address alone does not say which stack it is in.
#pragma once

#include <cstdint>

#include "runtime/heap/partition.hpp"

namespace dstd::rt {

// Set by whoever switches this OS thread onto a partition stack (the
// scheduler's workers, main_fiber); nullptr when it leaves it. `thread_id`
// points at where the thread's dstd::thread::id value is kept (0 while it
// has none); it may be nullptr.
void set_running_stack(const stack_span* stack, void* const* thread_id) noexcept;

// For the fault handler: when `fault` is in the guard region of the stack
// this OS thread is running on, ends the run with "stack overflow in thread
// T on node N (stack S KiB; raise DSTD_STACK_KB)". Otherwise returns.
void report_if_stack_overflow(std::uintptr_t fault) noexcept;

// Gives the calling OS thread an alternate signal stack (once; reserved
// memory, committed only when a signal runs on it).
void ensure_signal_stack();

}  // namespace dstd::rt
