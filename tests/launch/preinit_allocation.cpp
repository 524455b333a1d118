// preinit_allocation: a program that allocates from its .preinit_array, as
// clang's sanitizer runtimes do, before glibc has set `environ`. The
// allocation boots dstd's heap, which reads dstdrun's launch variables then;
// when they read as unset, every node ran the program as a one-node run of
// its own (dstdrun then reported node 0 "exited before joining"; under
// mpirun or srun each rank would have run the whole program alone). Checks
// that the run has the nodes dstdrun started (DSTD_NODE_COUNT, 1 without
// dstdrun), that a thread runs on each, and that the early block is intact.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dstd/dstd.hpp>
#include <dstd/thread>
#include <vector>

namespace {

char* early_block = nullptr;

void allocate_before_glibc_is_set_up(int, char**, char**) {
  early_block = static_cast<char*>(std::malloc(64));
  if (early_block != nullptr) std::strcpy(early_block, "allocated in .preinit_array");
}

[[gnu::section(".preinit_array"), gnu::used]] void (*const preinit_hook)(int, char**, char**) =
    allocate_before_glibc_is_set_up;

}  // namespace

int main() {
  const char* asked = std::getenv("DSTD_NODE_COUNT");
  const unsigned expected = asked == nullptr ? 1u : static_cast<unsigned>(std::atoi(asked));
  if (dstd::node_count() != expected) {
    std::fprintf(stderr, "the run has %u nodes; dstdrun started %u\n", dstd::node_count(),
                 expected);
    return 1;
  }
  if (early_block == nullptr || std::strcmp(early_block, "allocated in .preinit_array") != 0) {
    std::fprintf(stderr, "the block allocated in .preinit_array is lost\n");
    return 1;
  }
  std::vector<unsigned> ran_on(expected, ~0u);
  std::vector<dstd::thread> threads;
  for (dstd::node_id n = 0; n < expected; ++n) {
    threads.push_back(dstd::spawn_on(n, [&ran_on, n] { ran_on[n] = dstd::this_node(); }));
  }
  for (auto& t : threads) t.join();
  for (dstd::node_id n = 0; n < expected; ++n) {
    if (ran_on[n] != n) {
      std::fprintf(stderr, "the thread started on node %u ran on node %u\n", n, ran_on[n]);
      return 1;
    }
  }
  std::free(early_block);
  std::printf("%u nodes, each ran its thread\n", expected);
  return 0;
}
