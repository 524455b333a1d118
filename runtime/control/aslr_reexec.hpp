// A node started with address-space randomization on turns it off for
// itself by re-executing, before anything else runs.
//
// Why: the nodes of a run share addresses (the global heap, the
// executable's static data, fiber stacks, the code that pointers to
// functions name), so every node's executable and libraries must sit at
// the same addresses, which randomization forbids. dstdrun starts its nodes
// with ADDR_NO_RANDOMIZE; another launcher (srun, mpirun) does not. A node
// of a run of several then sets the flag on itself and executes itself
// again (the flag lasts across exec, as `setarch -R` relies on): a
// per-process setting, never a system one. One try: the marker variable
// DSTD_ASLR_REEXEC stops a loop, and boot reports a node that is still
// randomized.
#pragma once

namespace dstd::rt {

// Called first thing from the program's entry (boot.cpp's
// __libc_start_main), with main's argv. Returns only when there is nothing
// to do or the re-execution failed (it says why on stderr).
void reexec_without_aslr_if_needed(char** argv);

// True when this process is the result of that re-execution.
bool reexecuted_without_aslr();

}  // namespace dstd::rt
