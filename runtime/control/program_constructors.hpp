// The executable's static constructors, run by libdstd instead of glibc, so
// that they run once in the whole run: on node 0, after boot.
//
// Why: the executable's writable static data is one region shared by every
// node (heap/static_region.hpp), so its objects must be constructed once, as
// in one process; a constructor run on every node also repeats its side
// effects (a global thread pool started N times; before boot, with no run
// to start threads in, it crashed). glibc's __libc_start_main calls the
// `init` function it is given in place of its own call of the executable's
// constructors (DT_INIT and DT_INIT_ARRAY; DT_PREINIT_ARRAY and the shared
// libraries' constructors run earlier, in the dynamic linker, on every
// node). boot.cpp passes its own `init`, which boots the node and then, on
// node 0 only, calls run_program_constructors().
#pragma once

namespace dstd::rt {

// Calls the main executable's DT_INIT, then each DT_INIT_ARRAY entry in
// order, with (argc, argv, envp), as glibc does.
void run_program_constructors(int argc, char** argv, char** envp);

}  // namespace dstd::rt
