// The PMIx source when libdstd was built without libpmix (pkg-config found
// no `pmix` at configure time; sources.hpp): a node that mpirun or srun
// started with PMIx cannot exchange addresses, and says so.
#include "runtime/common/fatal.hpp"
#include "runtime/transport/wireup/sources.hpp"

namespace dstd::rt::wireup {

std::vector<std::vector<std::byte>> exchange_through_pmix(const launch_info& launch,
                                                          std::span<const std::byte>,
                                                          unsigned) {
  fatal("this node was started through PMIx (%s is set), but this libdstd was built without "
        "PMIx (install libpmix-dev and rebuild); start the program with dstdrun",
        launch.rank_variable);
}

}  // namespace dstd::rt::wireup
