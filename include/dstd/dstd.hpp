// <dstd/dstd.hpp>: everything dstd offers — the node API (this_node(),
// node_count(), home_of(), stats()), threads and stop tokens, atomics, the
// synchronization types, the smart pointers, channels and futures.
#pragma once

#include <dstd/atomic>
#include <dstd/bits/node.hpp>
#include <dstd/channel>
#include <dstd/future>
#include <dstd/memory>
#include <dstd/stop_token>
#include <dstd/sync>
#include <dstd/thread>
