// A node's stdout and stderr, which dstdrun forwards in whole lines.
//
// Why: under dstdrun each node writes into pipes of its own that dstdrun
// reads in one poll loop (runtime/launch/line_forwarder.hpp). Two pipes
// cannot order each other's lines by themselves: what a thread on node 2
// printed before it ended could reach the terminal after what main on node
// 0 prints once it has joined that thread, or could sit in node 2's stdio
// buffer until the run ends. So where one thread's output must come before
// another's on another node, flush_forwarded_output() flushes the node's
// stdout and stderr and waits until dstdrun has read everything in the
// node's pipes; dstdrun writes the complete lines of what it read before it
// reads any pipe again, so those lines are out before anything written
// after the wait. A dstd thread does it as it ends (before join can see it
// finished), a thread starting a thread on another node before it sends
// the start, and exit() on another node before it asks node 0 to end the
// run (run_exit.hpp).
//
// The node also gives stdout the buffering it would have writing where
// dstdrun writes: line-buffered when that is a terminal.
#pragma once

namespace dstd::rt {

// At boot: line-buffers stdout when dstdrun writes to a terminal, and
// keeps a descriptor of each forwarding pipe (the program may redirect its
// fds 1 and 2 later).
void set_up_forwarded_output();

// Flushes stdout and stderr and, when dstdrun forwards them, waits until it
// has read every byte this node wrote to them. Cheap when nothing is
// waiting: two fflush and two ioctls.
void flush_forwarded_output();

}  // namespace dstd::rt
