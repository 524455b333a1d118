// Connecting to dstdrun at "HOST:PORT" (DSTD_WIREUP, DSTD_LAUNCH_ADDR).
//
// Why in common: a node reaches dstdrun over TCP twice, from two layers:
// the transport's wire-up exchange and control's lifeline. Both take the
// address from the environment in the same form and must fail the same
// way, so the parsing, name lookup and connect are one function.
#pragma once

#include <string>

namespace dstd::rt {

// A blocking, close-on-exec TCP connection to `host_port`, or -1 with the
// reason in `error` ("... is not HOST:PORT", "cannot resolve ...",
// "cannot connect to ...: <errno text>").
int connect_tcp(const char* host_port, std::string& error);

}  // namespace dstd::rt
