// Message handler ids owned by the runtime. One list, so two subsystems can
// never pick the same id. Tests and tools use ids from first_user_handler.
#pragma once

#include "runtime/transport/transport.hpp"

namespace dstd::rt::handler_ids {

inline constexpr handler_id shutdown = 1;     // node 0 -> others: the program is over
inline constexpr handler_id remote_free = 2;  // a batch of blocks for their home to free
inline constexpr handler_id usable_size = 3;  // malloc_usable_size of a block, at its home
inline constexpr handler_id apply_diffs = 4;  // coherence: a release's page diffs for their home
inline constexpr handler_id wake_waiter = 5;  // unpark a waiter on its node (sched/remote_wake)
inline constexpr handler_id start_thread = 6; // run a new dstd thread here (dstd/thread)
inline constexpr handler_id futex_wait = 7;   // sync/home_futex: queue a waiter at the word's home
inline constexpr handler_id futex_cancel = 8; // ... take a timed-out waiter off the queue
inline constexpr handler_id futex_wake = 9;   // ... wake waiters of a word
inline constexpr handler_id tbox_room = 10;  // memory for a tbox's pointee at the tbox's home
inline constexpr handler_id exit_request = 11;  // another node -> 0: exit(n) (control/run_exit)
inline constexpr handler_id share_handler = 12;  // 0 -> others: register a user handler (control)
inline constexpr handler_id mutex_lock = 13;    // sync/home_mutex: a contended lock, at its home
inline constexpr handler_id mutex_cancel = 14;  // ... take a timed-out waiter out of the line
inline constexpr handler_id mutex_unlock = 15;  // ... give a contended lock
inline constexpr handler_id notice_own_writes = 16;  // coherence: which pages the home wrote
inline constexpr handler_id last_runtime_handler = notice_own_writes;  // keep this the last id

}  // namespace dstd::rt::handler_ids

namespace dstd::rt {

// Registers the handler of every id above, then checks that none is
// missing; boot calls it before any message can arrive. Defined in the top
// layer (dstd/runtime_handlers.cpp), the only one that sees every handler.
void register_runtime_handlers();

// The name of a runtime handler, for error messages ("user" from
// first_user_handler on).
inline const char* handler_name(handler_id h) {
  static constexpr const char* names[] = {"none",        "shutdown",     "remote_free",
                                          "usable_size", "apply_diffs",  "wake_waiter",
                                          "start_thread", "futex_wait",  "futex_cancel",
                                          "futex_wake",  "tbox_room",    "exit_request",
                                          "share_handler", "mutex_lock",  "mutex_cancel",
                                          "mutex_unlock", "notice_own_writes"};
  if (h < sizeof names / sizeof names[0]) return names[h];
  return h >= first_user_handler ? "user" : "unknown";
}

}  // namespace dstd::rt
