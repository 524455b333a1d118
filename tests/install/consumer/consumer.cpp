// A program built against an installed dstd, as a user would build one.
#include <cstdio>
#include <dstd/dstd.hpp>

int main() {
  std::printf("consumer: node %u of %u\n", dstd::this_node(), dstd::node_count());
  return 0;
}
