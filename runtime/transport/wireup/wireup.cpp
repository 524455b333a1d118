// See wireup.hpp: the source follows whoever launched the node
// (launch_info::by, decided once in runtime/transport/launch_info.cpp).
#include "runtime/transport/wireup/wireup.hpp"

#include "runtime/common/fatal.hpp"
#include "runtime/transport/wireup/sources.hpp"
#include "runtime/transport/wireup/wireup_wire.hpp"

namespace dstd::rt::wireup {

std::vector<std::vector<std::byte>> exchange(const launch_info& launch,
                                             std::span<const std::byte> mine,
                                             unsigned timeout_ms) {
  if (mine.size() > dstd::wireup::max_blob_bytes) {
    fatal("wire-up: this node's record is too large");
  }
  switch (launch.by) {
    case launcher::pmix:
      return exchange_through_pmix(launch, mine, timeout_ms);
    case launcher::plain:
      fatal("this node was started by a launcher without PMIx (%s is set, PMIX_RANK is not), "
            "so the nodes have no way to exchange their %s addresses; start the program with "
            "srun --mpi=pmix, with Open MPI's mpirun, or with dstdrun",
            launch.rank_variable, launch.kind);
    case launcher::dstdrun:
    case launcher::none:
      break;
  }
  return exchange_with_dstdrun(launch, mine, timeout_ms);
}

}  // namespace dstd::rt::wireup
