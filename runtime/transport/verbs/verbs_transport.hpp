// The verbs backend: nodes on RDMA devices (InfiniBand, RoCE, Soft-RoCE),
// straight over libibverbs and librdmacm.
//
// Why beside ucx: one-sided reads and writes that never wake the home's
// CPU, with every choice (registration, ordering, atomics) in dstd's hands.
// Mapping of the transport contract (transport.hpp):
//  * one RC queue pair per peer, connected with rdma_cm (verbs_connect.hpp)
//    at the IPv4 address of the device's GID (verbs_device.hpp), which the
//    wire-up carries;
//  * reads and writes are RDMA_READ and RDMA_WRITE on the home's window
//    (home_window.hpp), registered in chunks on demand (verbs_keys.hpp);
//    their bytes go through registered staging buffers (verbs_buffers.hpp),
//    or inline for small writes; a write finishes when its completion says
//    the home acknowledged it;
//  * atomics: when the device's atomics are atomic with the home's CPU
//    (IBV_ATOMIC_GLOB) they are ATOMIC_CMP_AND_SWP and ATOMIC_FETCH_AND_ADD;
//    otherwise (rxe and most NICs report IBV_ATOMIC_HCA) they are served at
//    the home: a message that whichever thread polls the home's completion
//    queue answers with a CPU atomic on the window, the same atomics the
//    home itself uses, so both are atomic with each other;
//  * messages are SENDs into one shared receive queue (verbs_wire.hpp),
//    inline when small; handlers run on the service thread from an inbox;
//  * per-peer order: the responder runs a queue pair's writes and sends in
//    order; a request carries IBV_SEND_FENCE only where that is not enough
//    (a write, send or atomic after an unfinished read or NIC atomic, a
//    read after an unfinished write: needs_fence), and a one-sided
//    operation to a peer waits until the atomics served at that peer have
//    been answered;
//  * one completion queue for everything, polled by the service thread and
//    by every blocked wait (waiting.hpp's progress driver); the service
//    thread sleeps on the queue's completion channel when idle.
// A failed work completion, or a peer whose connection ends before the run
// does, ends the node with a message naming the peer.
#pragma once

#include <memory>
#include <span>

#include "runtime/transport/backend.hpp"

namespace dstd::rt::verbs {

// A node-private memfd holding the home partition (and, at node 0, the
// executable's static data after it). No allocation: runs in the first malloc.
home_memory home_memory_for(const launch_info& launch);

std::unique_ptr<transport> make_transport(const launch_info& launch,
                                          std::span<const memory_region> regions);

}  // namespace dstd::rt::verbs
