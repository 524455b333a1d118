// See launcher_address.hpp.
#include "runtime/launch/launcher_address.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/launch/host_list.hpp"

namespace dstd::launch {

namespace {

// This host's IPv4 address on the route to `host`.
bool route_source(const std::string& host, std::string& address, std::string& error) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (const int rc = getaddrinfo(host.c_str(), "9", &hints, &found); rc != 0) {
    error = "cannot resolve host " + host + " (" + gai_strerror(rc) +
            ") to find dstdrun's address for it; give --launcher-address";
    return false;
  }
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in self{};
  socklen_t len = sizeof self;
  const bool ok = fd >= 0 && connect(fd, found->ai_addr, found->ai_addrlen) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&self), &len) == 0;
  const int saved = errno;
  freeaddrinfo(found);
  if (fd >= 0) close(fd);
  char text[INET_ADDRSTRLEN] = {};
  if (!ok || inet_ntop(AF_INET, &self.sin_addr, text, sizeof text) == nullptr) {
    error = "no route to host " + host + " (" + std::strerror(saved) +
            "); give --launcher-address";
    return false;
  }
  address = text;
  return true;
}

}  // namespace

bool choose_launcher_address(const std::string& given, const std::vector<std::string>& node_hosts,
                             std::string& address, std::string& error) {
  if (!given.empty()) {
    in_addr parsed{};
    if (inet_pton(AF_INET, given.c_str(), &parsed) != 1) {
      error = "the launcher address '" + given + "' (--launcher-address or " +
              "DSTD_LAUNCHER_ADDRESS) is not a numeric IPv4 address";
      return false;
    }
    address = given;
    return true;
  }
  for (const std::string& host : node_hosts)
    if (!host.empty() && !is_local_host(host)) return route_source(host, address, error);
  address = "127.0.0.1";
  return true;
}

}  // namespace dstd::launch
