// A listening TCP socket on a numeric IPv4 address, port chosen by the
// kernel.
//
// Why a file of its own: dstdrun listens twice (the wire-up server and the
// remote nodes' lifelines), on the same address; one function does the
// socket, bind, listen and port lookup for both.
#pragma once

#include <string>

namespace dstd::launch {

// Returns the listening descriptor (close-on-exec) and its port, or -1 with
// the reason in `error` ("... is not a numeric IPv4 address", bind errors).
int listen_tcp(const std::string& address, unsigned& port, std::string& error);

}  // namespace dstd::launch
