// Who a node is when another launcher than dstdrun started it: mpirun
// (Open MPI, through its PMIx server) or srun (SLURM), from the variables
// those launchers set for every process they start.
//
// Why its own file: the launch is decided in one place
// (launch_info.cpp), but which variables name the rank and the size, and in
// which order they are trusted, is a table of its own. PMIx first (the
// launcher that can also carry the wire-up, runtime/transport/wireup/), then
// Open MPI's, then SLURM's. The size must come from a variable too: this
// runs at the first malloc, long before PMIx_Init (which allocates) may be
// called, and PMIx itself sets no size variable, so under PMIx the size is
// mpirun's OMPI_COMM_WORLD_SIZE or srun's SLURM_NTASKS. Parsing must not
// allocate.
#pragma once

#include <cstdint>

#include "runtime/transport/transport.hpp"

namespace dstd::rt {

// Who started the node, as far as its environment tells.
enum class launcher : std::uint8_t {
  none,     // nobody: a plain one-node program
  dstdrun,  // DSTD_NODE_ID and the rest of launch_contract.hpp
  pmix,     // PMIX_RANK: mpirun, srun --mpi=pmix (wire-up through PMIx)
  plain,    // OMPI_COMM_WORLD_RANK or SLURM_PROCID without PMIx: no wire-up
};

struct foreign_launch {
  launcher by = launcher::none;  // none: no foreign launcher's variables
  node_id rank = 0;
  node_id size = 1;
  const char* rank_variable = nullptr;  // the variables they came from
  const char* size_variable = nullptr;
};

// Reads PMIX_RANK, OMPI_COMM_WORLD_RANK/_SIZE, SLURM_PROCID/SLURM_NTASKS.
// A malformed value, a rank not below the size, a size above
// layout::max_nodes or PMIX_RANK without a size variable is a fatal error
// naming the variable.
foreign_launch detect_foreign_launch();

}  // namespace dstd::rt
