// Waking a waiter that may live on another node: the one remote-unpark path
// of the runtime (dstd::thread's join and the cluster futex both use it).
//
// Why a name and not a pointer: a waiter (scheduler.hpp) is named by its
// node and its id there (waiter_registry.hpp), so the name says where to
// send the wake without asking where the waiter's object lives, and stays
// right if the waiter's object ever moves. Waking one elsewhere sends the
// name to that node, whose service thread looks the id up and unparks it.
// Waiters are never freed, so a wake that arrives after the waiter stopped
// waiting is a harmless spurious one.
#pragma once

#include <cstdint>

#include "runtime/sched/scheduler.hpp"
#include "runtime/transport/transport.hpp"

namespace dstd::rt::sched {

struct waiter_name {
  node_id node = 0;
  waiter_id id = 0;
};

// The calling waiter's name.
waiter_name my_name();

// A name as one 64-bit value for a home word, never 0 or 1 (such words keep
// those for their own states), and back.
std::uint64_t pack(waiter_name w) noexcept;
waiter_name unpack(std::uint64_t packed) noexcept;

// Any thread, any node: unpark `w` on its node, leaving `mark` with it if
// not 0 (unpark_with_mark). A fatal error on the waiter's node if it never
// had that waiter.
void wake(waiter_name w, std::uint64_t mark = 0);

// Registers the handler of remote wakes (called by
// register_runtime_handlers()).
void register_remote_wake_handlers();

}  // namespace dstd::rt::sched
