// Waking a waiter that may live on another node.
//
// Why it is just a pointer: a waiter (scheduler.hpp) is a heap object of
// the node it waits on, so its address names its node (home_of) as well as
// the waiter. Waking one elsewhere sends that address to its home, whose
// service thread unparks it. Waiters are never freed, so a wake that
// arrives after the waiter stopped waiting is a harmless spurious one.
#pragma once

#include "runtime/sched/scheduler.hpp"

namespace dstd::rt::sched {

// Any thread, any node: unpark `w` on its node.
void wake(fiber* w);

// Registers the handler of remote wakes (called by
// register_runtime_handlers()).
void register_remote_wake_handlers();

}  // namespace dstd::rt::sched
