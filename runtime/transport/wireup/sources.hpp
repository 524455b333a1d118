// The places a node's wire-up blob can travel through (wireup.hpp chooses
// by launch_info::by): dstdrun's TCP server, or the PMIx server of mpirun
// or srun.
//
// Why separate files: each source is a protocol of its own with its own
// failures, and the PMIx one exists only when libpmix was found at
// configure time (pmix_source.cpp; else pmix_absent.cpp says so at run
// time). Both return every node's blob, indexed by node id, or end the
// node with a message naming what failed.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "runtime/transport/launch_info.hpp"

namespace dstd::rt::wireup {

// Through dstdrun's server at DSTD_WIREUP (dstdrun_source.cpp).
std::vector<std::vector<std::byte>> exchange_with_dstdrun(const launch_info& launch,
                                                          std::span<const std::byte> mine,
                                                          unsigned timeout_ms);

// Through PMIx: put, fence collecting the data, get each rank's
// (pmix_source.cpp).
std::vector<std::vector<std::byte>> exchange_through_pmix(const launch_info& launch,
                                                          std::span<const std::byte> mine,
                                                          unsigned timeout_ms);

}  // namespace dstd::rt::wireup
