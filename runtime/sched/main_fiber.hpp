// main runs on a fiber whose stack is in the global range.
//
// Why: a program may hand the address of one of main's locals to a thread
// on another node (a [&] capture). With main's stack in node 0's partition,
// that address is a global address like any heap pointer.
#pragma once

namespace dstd::rt {

using main_fn = int (*)(int, char**, char**);

// Runs main(argc, argv, envp) on a fiber with a stack from the home
// partition's stack area (as large as the process's stack limit, 8 MiB if
// unlimited) and returns its result.
int run_main_on_fiber(main_fn main, int argc, char** argv, char** envp);

}  // namespace dstd::rt
