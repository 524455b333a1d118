// Wire-up: how the nodes of a network backend learn each other's addresses.
//
// Why a layer of its own: ucx (and later verbs) need the same thing before
// their first message: every node's blob (join record, endpoint address),
// from every other node. Where it comes from depends on who launched the
// run, not on the backend: dstdrun's wire-up server (DSTD_WIREUP, format in
// wireup_wire.hpp), or the PMIx server of mpirun or srun --mpi=pmix
// (sources.hpp; launch_info::by chooses). A backend asks here and never
// knows which.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "runtime/transport/launch_info.hpp"

namespace dstd::rt::wireup {

// Publishes `mine` and returns every node's blob, indexed by node id (ours
// included). Fails the node with a message naming what went wrong
// (dstdrun's server: its address, refused, unreachable, no answer within
// timeout_ms; PMIx: the call and the rank; a launcher without PMIx: what to
// use instead).
std::vector<std::vector<std::byte>> exchange(const launch_info& launch,
                                             std::span<const std::byte> mine,
                                             unsigned timeout_ms);

}  // namespace dstd::rt::wireup
