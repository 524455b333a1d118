// Locks for atomic objects too large for a hardware atomic (std::atomic<T>
// with sizeof(T) not 1, 2, 4 or 8), shared by the whole run.
//
// Why a table: such an atomic has std's size, so there is no room for a lock
// inside it; as in libatomic, its address picks a lock from a fixed table.
// The table is on node 0 and its address goes round in the join records;
// the locks are home locks (home_lock.hpp): a waiter parks at the lock's
// home instead of spinning on it from another node.
#pragma once

#include <vector>

#include "runtime/transport/join_record.hpp"

namespace dstd::rt::lock_table {

// At boot, before rendezvous (node 0 makes the table) and after it.
void describe(join_record& mine);
void init(const std::vector<join_record>& all);

// The lock for the object at `p` (any size; all of its bytes map to it).
void lock(const void* p);
void unlock(const void* p);

}  // namespace dstd::rt::lock_table
