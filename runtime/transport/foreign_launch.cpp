// See foreign_launch.hpp.
#include "runtime/transport/foreign_launch.hpp"

#include "runtime/common/env.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/layout.hpp"

namespace dstd::rt {

namespace {

constexpr const char* pmix_rank = "PMIX_RANK";
constexpr const char* ompi_rank = "OMPI_COMM_WORLD_RANK";
constexpr const char* ompi_size = "OMPI_COMM_WORLD_SIZE";
constexpr const char* slurm_rank = "SLURM_PROCID";
constexpr const char* slurm_size = "SLURM_NTASKS";

// The size first, so that the rank's range in a bad-rank message is the
// job's.
foreign_launch read(launcher by, const char* rank_variable, const char* size_variable) {
  foreign_launch f;
  f.by = by;
  f.rank_variable = rank_variable;
  f.size_variable = size_variable;
  f.size = static_cast<node_id>(env::required_number(size_variable, 1, layout::max_nodes));
  f.rank = static_cast<node_id>(env::required_number(rank_variable, 0, f.size - 1));
  return f;
}

}  // namespace

foreign_launch detect_foreign_launch() {
  if (env::text(pmix_rank) != nullptr) {
    if (env::text(ompi_size) != nullptr) return read(launcher::pmix, pmix_rank, ompi_size);
    if (env::text(slurm_size) != nullptr) return read(launcher::pmix, pmix_rank, slurm_size);
    fatal("%s is set, but neither %s (mpirun) nor %s (srun) says how many processes the job "
          "has; start the program with mpirun, srun --mpi=pmix or dstdrun",
          pmix_rank, ompi_size, slurm_size);
  }
  if (env::text(ompi_rank) != nullptr) return read(launcher::plain, ompi_rank, ompi_size);
  if (env::text(slurm_rank) != nullptr) return read(launcher::plain, slurm_rank, slurm_size);
  return {};
}

}  // namespace dstd::rt
