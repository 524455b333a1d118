// Destructors of a dstd thread's thread_local objects run when that thread
// ends, as with std::thread.
//
// libstdc++ registers a thread_local's destructor through glibc's
// __cxa_thread_atexit_impl, which libdstd interposes: on a fiber the
// registration goes to a list in the fiber's own thread-local storage
// (fiber_tls.hpp), run by run_thread_exit_destructors; on any other thread
// (main, a worker, a std::thread) it goes to glibc as before.
#pragma once

namespace dstd::rt::sched {

// Runs the calling fiber's registered destructors, newest first, until none
// is left (a destructor may register more). Called at the end of a dstd
// thread before it is marked finished, and by the scheduler when any fiber
// returns. Does nothing outside a fiber.
void run_thread_exit_destructors();

}  // namespace dstd::rt::sched
