// Probe (tests/CMakeLists.txt, dstd_assert_reports): a failed DSTD_ASSERT
// ends the program with the file, line, condition and the state it names.
// Built with assertions on whatever the build type.
#include "runtime/common/assert.hpp"

int main(int argc, char**) {
  const int nodes_seen = argc + 6;
  DSTD_ASSERT(nodes_seen == 8, "saw %d nodes", nodes_seen);
  return 0;
}
