// Reporting from inside the runtime: one line on stderr naming the node.
//
// Why not exceptions: most runtime failures (a broken segment, a peer that
// sent garbage, a mismatched binary) leave nothing a program could recover;
// the node prints what happened and what to do, and exits so dstdrun stops
// the run and names the node.
#pragma once

#include <cstdint>

namespace dstd::rt {

// Prints "dstd: node N: <message>" and exits the process with status 1
// without running atexit handlers (another node may be waiting on us).
[[noreturn, gnu::format(printf, 1, 2)]] void fatal(const char* fmt, ...);

// Prints "dstd: node N: <message>" and carries on.
[[gnu::format(printf, 1, 2)]] void warn(const char* fmt, ...);

// Set once at boot so messages name the node.
void set_log_node(std::uint32_t node, std::uint32_t nodes);

}  // namespace dstd::rt
