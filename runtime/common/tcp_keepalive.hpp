// TCP keepalive on a lifeline: the connection between dstdrun and a remote
// node, or, without dstdrun, between node 0 and another node.
//
// Why: that connection is the node's lifeline (launch_contract.hpp,
// runtime/transport/peer_lifelines.hpp). It is
// idle for most of a run, and an idle connection whose peer's host became
// unreachable (link down, cable pulled) stays open for hours by default.
// With probes after 1 s of silence, every second, and 2 unanswered ones
// ending it, either side sees the other gone within about 3-4 s. Both
// ends call this, from the launcher and the runtime, so it is one inline
// function here.
#pragma once

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

namespace dstd::launch {

inline constexpr int keepalive_idle_s = 1;
inline constexpr int keepalive_interval_s = 1;
inline constexpr int keepalive_probes = 2;

// False (errno set) when the kernel refuses an option.
inline bool set_lifeline_keepalive(int fd) {
  const int on = 1;
  return setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on) == 0 &&
         setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &keepalive_idle_s, sizeof keepalive_idle_s) == 0 &&
         setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &keepalive_interval_s,
                    sizeof keepalive_interval_s) == 0 &&
         setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &keepalive_probes, sizeof keepalive_probes) == 0;
}

}  // namespace dstd::launch
