// The address remote nodes reach dstdrun at (its wire-up server and their
// lifelines).
//
// Why a file of its own: 127.0.0.1 serves nodes on this host only. Without
// --launcher-address (or DSTD_LAUNCHER_ADDRESS), dstdrun asks the kernel
// which of its addresses a packet to the first remote host would leave
// from (connect a UDP socket to it, getsockname: nothing is sent), which is
// the address that host can most likely reach.
#pragma once

#include <string>
#include <vector>

namespace dstd::launch {

// `given`: the option's or the variable's value, or "". `node_hosts`: each
// node's host ("" for local nodes, or every node without --hosts). False
// with `error` set when the first remote host cannot be resolved or routed.
bool choose_launcher_address(const std::string& given, const std::vector<std::string>& node_hosts,
                             std::string& address, std::string& error);

}  // namespace dstd::launch
