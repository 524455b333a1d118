// exit() and quick_exit() from any thread on any node end the whole run
// with their status, as they end a process.
//
// Why: only node 0 runs the program's end (boot.hpp): its atexit handlers,
// among them end_run, which tells the other nodes to leave, and the static
// destructors of the objects every node shares. exit(n) on another node
// would run that node's copies of the handlers on the shared objects and
// end only that node, which dstdrun reports as a failure. So libdstd
// interposes exit and quick_exit (cmake/libdstd.version): on a node other
// than 0 they flush the node's stdio and ask node 0 to call exit(n) (or
// quick_exit(n)) for them; the calling thread then waits for the end of the
// run, which node 0's exit brings to every node. Handlers and destructors
// therefore run once, on node 0, and node 0's status, n, is dstdrun's.
// On node 0 (and in a program that has not booted, or a forked child) they
// are glibc's, except that a second thread calling exit while one is
// already exiting waits for the process to end instead of running the
// handlers a second time.
#pragma once

namespace dstd::rt {

// Registers node 0's handler of exit requests (register_runtime_handlers).
void register_exit_handlers();

// How node 0 ends when main returns: as exit(status) does.
[[noreturn]] void exit_run(int status);

}  // namespace dstd::rt
