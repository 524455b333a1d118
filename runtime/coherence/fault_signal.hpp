// The SIGSEGV handler (fault_signal.cpp): coherence faults, stack overflows
// (heap/running_stack.hpp), and the program's own handler beside them.
#pragma once

namespace dstd::rt::coherence {

// Installs dstd's SIGSEGV handler; later calls do nothing. coherence::init
// installs it in a run of several nodes; boot installs it in every run, so
// that a stack overflow is reported at one node too.
void install_fault_handler();

}  // namespace dstd::rt::coherence
