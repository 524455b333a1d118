// A program whose end is checked from outside (exit_test.sh): its exit
// status and how often its static destructor runs, at 1 and 4 nodes.
//
//   exit_program return N   main returns N
//   exit N                  exit(N) from a function called by main
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dstd/dstd.hpp>

namespace {

struct announces_destruction {
  ~announces_destruction() {
    std::printf("static destructor ran on node %u\n", dstd::this_node());
  }
} on_exit;

[[noreturn]] void leave(int status) { std::exit(status); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: exit_program return|exit N\n");
    return 2;
  }
  const int status = std::atoi(argv[2]);
  std::printf("main running on node %u of %u\n", dstd::this_node(), dstd::node_count());
  if (std::strcmp(argv[1], "exit") == 0) leave(status);
  return status;
}
