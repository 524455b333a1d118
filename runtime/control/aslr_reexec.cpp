// See aslr_reexec.hpp.
#include "runtime/control/aslr_reexec.hpp"

#include <sys/personality.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "runtime/transport/launch_info.hpp"

namespace dstd::rt {

namespace {

constexpr const char* marker = "DSTD_ASLR_REEXEC";

// Whoever launched it (dstdrun, mpirun, srun): launch_info decides.
bool one_of_many_nodes() {
  const launch_info& launch = current_launch();
  return launch.launched && launch.nodes > 1;
}

}  // namespace

void reexec_without_aslr_if_needed(char** argv) {
  if (!one_of_many_nodes() || reexecuted_without_aslr()) return;
  const int persona = personality(0xffffffff);
  if (persona == -1 || (persona & ADDR_NO_RANDOMIZE) != 0) return;
  if (personality(static_cast<unsigned long>(persona) | ADDR_NO_RANDOMIZE) == -1 ||
      setenv(marker, "1", 1) != 0) {
    std::fprintf(stderr, "dstd: cannot turn off address-space randomization for this node: %s\n",
                 std::strerror(errno));
    return;  // boot stops the node, saying why
  }
  execv("/proc/self/exe", argv);
  std::fprintf(stderr, "dstd: cannot re-execute this node without address-space randomization: %s\n",
               std::strerror(errno));
  personality(static_cast<unsigned long>(persona));
}

bool reexecuted_without_aslr() { return std::getenv(marker) != nullptr; }

}  // namespace dstd::rt
