// Node start-up and shutdown.
//
// libdstd defines __libc_start_main, so every program linked with it enters
// the runtime before the executable's static constructors: the node maps the
// global address space, starts its transport, meets its peers and checks
// they run the same program. Node 0 then runs the constructors (once for the
// run: program_constructors.hpp) and main; every other node serves messages
// until node 0's program ends, and leaves with _exit so no static destructor
// runs twice.
#pragma once

#include "runtime/transport/transport.hpp"

namespace dstd::rt {

// True once this node has booted (false in a program whose entry did not go
// through libdstd, e.g. libdstd loaded with dlopen).
bool booted();

// Registers the handler of the end of the run (called by
// register_runtime_handlers()).
void register_boot_handlers();

}  // namespace dstd::rt
