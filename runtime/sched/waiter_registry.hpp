// Every waiter (scheduler.hpp) this node ever made, by a node-unique id.
//
// Why ids: a waiter on another node is named by (node, id) (remote_wake.hpp),
// not by its address, so that naming it does not tie it to where its object
// lives. Waiters are never freed, so the table only grows and an id stays
// valid for the whole run; the service thread looks ids up without a lock.
#pragma once

#include <cstdint>

namespace dstd::rt::sched {

struct fiber;

using waiter_id = std::uint32_t;  // 1, 2, ...; 0 names no waiter

// Gives `f` the next id (a fatal error past the table's capacity).
waiter_id enroll(fiber* f);
// The waiter with this id, or nullptr when this node never gave it out.
fiber* find_waiter(waiter_id id) noexcept;

}  // namespace dstd::rt::sched
