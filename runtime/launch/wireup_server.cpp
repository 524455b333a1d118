// See wireup_server.hpp.
#include "runtime/launch/wireup_server.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "runtime/launch/diag.hpp"
#include "runtime/launch/fd_io.hpp"
#include "runtime/launch/tcp_listen.hpp"
#include "runtime/transport/wireup/wireup_wire.hpp"

namespace dstd::launch {

namespace {

// A node that connected must send its hello at once; this bounds a stuck one.
constexpr int hello_timeout_s = 10;

bool read_all(int fd, void* data, std::size_t len) {
  auto* p = static_cast<char*>(data);
  while (len > 0) {
    const ssize_t n = read(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    len -= static_cast<std::size_t>(n);
  }
  return true;
}

// send(), not write(): a node that died must not kill dstdrun with SIGPIPE.
bool send_all(int fd, const void* data, std::size_t len) {
  const auto* p = static_cast<const char*>(data);
  while (len > 0) {
    const ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    len -= static_cast<std::size_t>(n);
  }
  return true;
}

bool send_u32(int fd, std::uint32_t v) { return send_all(fd, &v, sizeof v); }

}  // namespace

wireup_server::~wireup_server() {
  if (stop_fd_ >= 0) {
    const std::uint64_t one = 1;
    (void)!write(stop_fd_, &one, sizeof one);
  }
  if (thread_.joinable()) thread_.join();
  close_fd(listen_fd_);
  close_fd(stop_fd_);
}

bool wireup_server::listen(const std::string& address) {
  unsigned port = 0;
  std::string error;
  listen_fd_ = listen_tcp(address, port, error);
  if (listen_fd_ < 0) {
    say("the nodes' wire-up: %s", error.c_str());
    return false;
  }
  stop_fd_ = eventfd(0, EFD_CLOEXEC);
  if (stop_fd_ < 0) {
    say("cannot create an eventfd: %s", std::strerror(errno));
    return false;
  }
  address_ = address + ":" + std::to_string(port);
  return true;
}

void wireup_server::start(unsigned nodes) {
  thread_ = std::thread([this, nodes] { serve(nodes); });
}

void wireup_server::refuse(int fd, const std::string& why) {
  const wireup::table t{wireup::magic, 0};
  send_all(fd, &t, sizeof t);
  send_u32(fd, static_cast<std::uint32_t>(why.size()));
  send_all(fd, why.data(), why.size());
  close(fd);
}

// Accepts one connection and reads its hello; a bad one is refused (and
// said, so the user sees it even if the node's own message is lost).
bool wireup_server::accept_one(std::vector<int>& by_node, std::vector<std::string>& blobs,
                               unsigned nodes) {
  const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) return false;
  const timeval timeout{hello_timeout_s, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  wireup::hello h{};
  if (!read_all(fd, &h, sizeof h) || h.magic != wireup::magic) {
    close(fd);  // not a dstd node (or one that died): nothing to answer
    return false;
  }
  std::string why;
  if (h.version != wireup::version) {
    why = "wire-up version " + std::to_string(h.version) + ", dstdrun speaks " +
          std::to_string(wireup::version) + " (is the program built against this dstd?)";
  } else if (h.nodes != nodes || h.node >= nodes) {
    why = "node " + std::to_string(h.node) + " of " + std::to_string(h.nodes) +
          " does not belong to this run of " + std::to_string(nodes);
  } else if (by_node[h.node] >= 0) {
    why = "node " + std::to_string(h.node) + " joined twice";
  } else if (h.blob_bytes > wireup::max_blob_bytes) {
    why = "node " + std::to_string(h.node) + " sent a record that is too large";
  }
  std::string blob(h.blob_bytes, '\0');
  if (why.empty() && !read_all(fd, blob.data(), blob.size())) {
    close(fd);
    return false;
  }
  if (!why.empty()) {
    say("wire-up: %s", why.c_str());
    refuse(fd, why);
    return false;
  }
  by_node[h.node] = fd;
  blobs[h.node] = std::move(blob);
  return true;
}

void wireup_server::serve(unsigned nodes) {
  std::vector<int> by_node(nodes, -1);
  std::vector<std::string> blobs(nodes);
  unsigned joined = 0;
  while (joined < nodes) {
    pollfd p[2] = {{listen_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (p[1].revents != 0) break;  // the run is over before every node came
    if (accept_one(by_node, blobs, nodes)) ++joined;
  }
  if (joined == nodes) {
    std::string table;
    const wireup::table t{wireup::magic, nodes};
    table.append(reinterpret_cast<const char*>(&t), sizeof t);
    for (const std::string& blob : blobs) {
      const auto len = static_cast<std::uint32_t>(blob.size());
      table.append(reinterpret_cast<const char*>(&len), sizeof len);
      table += blob;
    }
    // A node that died meanwhile is the supervisor's to report.
    for (int fd : by_node) send_all(fd, table.data(), table.size());
  }
  for (int& fd : by_node) close_fd(fd);
}

}  // namespace dstd::launch
