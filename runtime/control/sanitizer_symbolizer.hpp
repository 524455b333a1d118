// In a program built with a sanitizer, starts the sanitizer's symbolizer
// (llvm-symbolizer) at boot, from the process's own stack.
//
// Why: a sanitizer starts its symbolizer at its first report, with a raw
// fork system call that libdstd's fork handling (fork_guard.hpp) never
// sees. Reports come from dstd threads, whose stacks are global memory
// mapped shared, and after a raw fork parent and child run on the same
// stack pages: the child's frames overwrote the parent's, the parent took
// the child's branch and executed llvm-symbolizer in place of the node
// (seen with strace: the node's pid was "superseded by execve"), and the
// report ended without names. Started once at boot, the symbolizer is a
// running child that every later report talks to through its pipes; boot
// runs on the stack the kernel gave the process, which a fork copies.
#pragma once

namespace dstd::rt {

// Nothing in a program without a sanitizer, or with symbolize=0.
void start_sanitizer_symbolizer() noexcept;

}  // namespace dstd::rt
