// A program whose end is checked from outside (exit_test.sh): its exit
// status and how often its static destructor, its atexit (or
// at_quick_exit) handler and the exiting thread's thread_local destructor
// run, at 1, 2 and 4 nodes.
//
//   exit_program return N        main returns N
//   exit N                       exit(N) from a function called by main
//   thread_exit N                exit(N) from a dstd thread on the last node
//                                (another node than main's in a run of 2+)
//   thread_quick_exit N          quick_exit(N) from a dstd thread there
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dstd/dstd.hpp>
#include <dstd/thread>

namespace {

struct announces_destruction {
  ~announces_destruction() {
    std::printf("static destructor ran on node %u\n", dstd::this_node());
  }
} on_exit;

// Used by the exiting dstd thread only: exit() runs its destructor first
// (quick_exit does not).
struct announces_thread_end {
  int uses = 0;
  ~announces_thread_end() {
    std::printf("thread_local destructor ran on node %u\n", dstd::this_node());
  }
};
thread_local announces_thread_end exiting_thread_state;

void atexit_handler() { std::printf("atexit handler ran on node %u\n", dstd::this_node()); }

void at_quick_exit_handler() {
  std::printf("at_quick_exit handler ran on node %u\n", dstd::this_node());
  std::fflush(stdout);  // quick_exit does not flush
}

[[noreturn]] void leave(int status) { std::exit(status); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: exit_program return|exit|thread_exit|thread_quick_exit N\n");
    return 2;
  }
  std::atexit(atexit_handler);
  std::at_quick_exit(at_quick_exit_handler);
  const int status = std::atoi(argv[2]);
  std::printf("main running on node %u of %u\n", dstd::this_node(), dstd::node_count());
  const bool quick = std::strcmp(argv[1], "thread_quick_exit") == 0;
  if (quick || std::strcmp(argv[1], "thread_exit") == 0) {
    dstd::thread t = dstd::spawn_on(dstd::node_count() - 1, [status, quick] {
      ++exiting_thread_state.uses;
      std::printf("thread exiting on node %u\n", dstd::this_node());
      if (quick) std::quick_exit(status);
      leave(status);
    });
    t.join();
    std::printf("main: the thread came back\n");
    return 99;
  }
  if (std::strcmp(argv[1], "exit") == 0) leave(status);
  return status;
}
