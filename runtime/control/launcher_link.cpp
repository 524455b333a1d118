// See launcher_link.hpp.
#include "runtime/control/launcher_link.hpp"

#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "runtime/common/fatal.hpp"
#include "runtime/common/kernel_sleep.hpp"
#include "runtime/common/launch_contract.hpp"
#include "runtime/common/tcp_connect.hpp"
#include "runtime/common/tcp_keepalive.hpp"
#include "runtime/control/node_env.hpp"

namespace dstd::rt {

namespace {

int link_fd = -1;

// dstdrun never writes on the lifeline: readable means closed or failed.
void* watch_lifeline(void* arg) {
  const int fd = static_cast<int>(reinterpret_cast<std::intptr_t>(arg));
  int error = 0;
  for (;;) {
    pollfd p{fd, POLLIN | POLLRDHUP, 0};
    if (poll(&p, 1, -1) < 0 && errno == EINTR) continue;
    char byte;
    const ssize_t n = recv(fd, &byte, 1, MSG_DONTWAIT);
    if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR))) continue;
    error = n < 0 ? errno : 0;
    break;
  }
  // A failed connection is said on stderr (dstdrun may still read it); a
  // closed one is dstdrun stopping the run, or gone: nothing to add. Then
  // end as dstdrun's SIGTERM ends a local node.
  if (error != 0) {
    char line[256];
    const int len = std::snprintf(line, sizeof line,
                                  "dstd: node %u: lost the connection to dstdrun (%s); stopping\n",
                                  current_node_env().self, std::strerror(error));
    if (len > 0) {
      ssize_t ignored = ::write(2, line, std::min(static_cast<std::size_t>(len), sizeof line - 1));
      (void)ignored;
    }
  }
  kill(getpid(), SIGTERM);
  kernel_sleep_ns(1'000'000'000);
  kill(getpid(), SIGKILL);
  return nullptr;
}

void send_hello(int fd, const node_env& env) {
  char hello[160];
  const int n = std::snprintf(hello, sizeof hello, "%s %u\n", env.launch_token, env.self);
  if (n < 0 || static_cast<std::size_t>(n) >= sizeof hello)
    fatal("%s is too long", launch::env_launch_token);
  if (send(fd, hello, static_cast<std::size_t>(n), MSG_NOSIGNAL) != n)
    fatal("cannot talk to dstdrun at %s: %s", env.launch_addr, std::strerror(errno));
}

}  // namespace

void connect_launcher_link() {
  const node_env& env = current_node_env();
  if (env.launch_addr == nullptr) return;
  std::string error;
  const int fd = connect_tcp(env.launch_addr, error);
  if (fd < 0) fatal("cannot reach dstdrun (%s): %s", launch::env_launch_addr, error.c_str());
  if (!launch::set_lifeline_keepalive(fd))
    fatal("cannot set TCP keepalive on the connection to dstdrun: %s", std::strerror(errno));
  send_hello(fd, env);
  link_fd = fd;
  pthread_t thread;
  if (pthread_create(&thread, nullptr, watch_lifeline,
                     reinterpret_cast<void*>(static_cast<std::intptr_t>(fd))) != 0)
    fatal("cannot start the thread that watches the connection to dstdrun");
  pthread_detach(thread);
}

void send_status_line(const char* line, std::size_t len) {
  ssize_t ignored = 0;
  if (link_fd >= 0) {
    ignored = send(link_fd, line, len, MSG_NOSIGNAL);
  } else if (const int pipe = current_node_env().launch_fd; pipe >= 0) {
    ignored = ::write(pipe, line, len);
  }
  (void)ignored;
}

void drop_launcher_link_in_child() {
  if (link_fd >= 0) close(link_fd);
  link_fd = -1;
}

}  // namespace dstd::rt
