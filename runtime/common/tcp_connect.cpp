// See tcp_connect.hpp.
#include "runtime/common/tcp_connect.hpp"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dstd::rt {

int connect_tcp(const char* host_port, std::string& error) {
  const char* colon = std::strrchr(host_port, ':');
  if (colon == nullptr || colon == host_port || colon[1] == '\0') {
    error = std::string(host_port) + " is not HOST:PORT";
    return -1;
  }
  const std::string host(host_port, colon);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = getaddrinfo(host.c_str(), colon + 1, &hints, &found); rc != 0) {
    error = std::string("cannot resolve ") + host_port + ": " + gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  int last_error = 0;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    const int s = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (s < 0) {
      last_error = errno;
    } else if (connect(s, a->ai_addr, a->ai_addrlen) == 0) {
      fd = s;
    } else {
      last_error = errno;
      close(s);
    }
  }
  freeaddrinfo(found);
  if (fd < 0) error = std::string("cannot connect to ") + host_port + ": " + std::strerror(last_error);
  return fd;
}

}  // namespace dstd::rt
