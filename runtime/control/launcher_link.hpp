// A remote node's lifeline to dstdrun: where its status lines go, and how
// it learns that dstdrun is gone.
//
// Why: a node dstdrun forked writes its status lines to an inherited pipe
// and dies with dstdrun through PR_SET_PDEATHSIG. A node started on another
// host through ssh has neither, so at boot it connects to DSTD_LAUNCH_ADDR,
// sends "<DSTD_LAUNCH_TOKEN> <id>" and then writes its status lines there
// (launch_contract.hpp). A thread of its own waits for dstdrun's side to
// close (dstdrun ended, stopped this node, or the connection failed: TCP
// keepalive notices within seconds) and then ends the node as dstdrun's
// SIGTERM would, with SIGKILL a second later if that did not end it.
#pragma once

#include <cstddef>

namespace dstd::rt {

// Connects when DSTD_LAUNCH_ADDR is set (a fatal error naming the address
// when it cannot); otherwise does nothing.
void connect_launcher_link();

// Sends one status line (whole, in one write) to the status pipe or the
// lifeline; nothing without dstdrun. A dstdrun that is gone is no error.
void send_status_line(const char* line, std::size_t len);

// In a forked child: close the lifeline, so that the node's death still
// ends it (the child is not the node).
void drop_launcher_link_in_child();

}  // namespace dstd::rt
