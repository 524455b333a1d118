// See peer_lifelines.hpp.
#include "runtime/transport/peer_lifelines.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "runtime/common/env.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/tcp_keepalive.hpp"

namespace dstd::rt {

namespace {

using clock = std::chrono::steady_clock;

// The lifelines of this process, for drop_in_child (one set per node).
std::atomic<peer_lifelines*> current{nullptr};

// What a connecting node says first; node 0 answers with the token.
struct hello {
  std::uint64_t token;
  std::uint32_t node;
  std::uint32_t unused;
};

int ms_left(clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
  return static_cast<int>(std::max<std::int64_t>(0, left.count()));
}

// Waits for `events` on fd until the deadline; false on timeout.
bool wait_for(int fd, short events, clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int rc = poll(&p, 1, ms_left(deadline));
    if (rc > 0) return true;
    if (rc == 0) return false;
    if (errno != EINTR) return false;
  }
}

// Reads exactly `len` bytes before the deadline; false on EOF, error or
// timeout.
bool read_all(int fd, void* to, std::size_t len, clock::time_point deadline) {
  auto* at = static_cast<char*>(to);
  while (len > 0) {
    if (!wait_for(fd, POLLIN, deadline)) return false;
    const ssize_t got = recv(fd, at, len, 0);
    if (got <= 0) {
      if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      return false;
    }
    at += got;
    len -= static_cast<std::size_t>(got);
  }
  return true;
}

bool write_all(int fd, const void* from, std::size_t len) {
  return send(fd, from, len, MSG_NOSIGNAL) == static_cast<ssize_t>(len);
}

// Whether `name` is one of UCX_NET_DEVICES' devices ("eth0,ib0:1").
bool named_by_ucx(const char* name) {
  const char* list = env::text("UCX_NET_DEVICES");
  if (list == nullptr) return false;
  const std::size_t len = std::strlen(name);
  for (const char* at = list; *at != '\0';) {
    const char* end = at + std::strcspn(at, ",:");
    if (static_cast<std::size_t>(end - at) == len && std::strncmp(at, name, len) == 0) return true;
    at = end + std::strcspn(end, ",");
    if (*at == ',') ++at;
  }
  return false;
}

// This host's IPv4 addresses, UCX_NET_DEVICES' first, loopback last.
void find_addresses(lifeline_offer& offer) {
  ifaddrs* all = nullptr;
  if (getifaddrs(&all) != 0) fatal("cannot list this host's addresses: %s", std::strerror(errno));
  for (int rank = 0; rank < 3; ++rank) {  // 0: named by UCX, 1: others, 2: loopback
    for (ifaddrs* i = all; i != nullptr; i = i->ifa_next) {
      if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
      if (!(i->ifa_flags & IFF_UP)) continue;
      const int its = (i->ifa_flags & IFF_LOOPBACK) ? 2 : named_by_ucx(i->ifa_name) ? 0 : 1;
      if (its != rank || offer.address_count == lifeline_offer::max_addresses) continue;
      offer.addresses[offer.address_count++] =
          reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr;
    }
  }
  freeifaddrs(all);
}

std::string dotted(std::uint32_t address) {
  char text[INET_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET, &address, text, sizeof text);
  return text;
}

// A connection to address:port within the deadline, or -1 (why in `error`).
int connect_before(std::uint32_t address, std::uint16_t port, clock::time_point deadline,
                   std::string& error) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    error = std::strerror(errno);
    return -1;
  }
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  to.sin_addr.s_addr = address;
  int rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to);
  if (rc != 0 && errno == EINPROGRESS) {
    if (!wait_for(fd, POLLOUT, deadline)) {
      error = "no answer";
      close(fd);
      return -1;
    }
    int failure = 0;
    socklen_t len = sizeof failure;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &len);
    rc = failure == 0 ? 0 : -1;
    errno = failure;
  }
  if (rc != 0) {
    error = std::strerror(errno);
    close(fd);
    return -1;
  }
  return fd;
}

void keep_alive(int fd, node_id peer) {
  if (!launch::set_lifeline_keepalive(fd)) {
    fatal("cannot set TCP keepalive on the lifeline to node %u: %s", peer, std::strerror(errno));
  }
}

}  // namespace

peer_lifelines::peer_lifelines(node_id self, node_id nodes)
    : self_(self), nodes_(nodes), links_(nodes, -1) {
  stop_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_ < 0) fatal("cannot make an eventfd for the lifelines: %s", std::strerror(errno));
  current.store(this, std::memory_order_release);
  if (self_ != 0) return;
  listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_in any{};
  any.sin_family = AF_INET;
  socklen_t len = sizeof any;
  if (listener_ < 0 || bind(listener_, reinterpret_cast<const sockaddr*>(&any), sizeof any) != 0 ||
      listen(listener_, static_cast<int>(std::min<node_id>(nodes, 4096))) != 0 ||
      getsockname(listener_, reinterpret_cast<sockaddr*>(&any), &len) != 0) {
    fatal("cannot listen for the other nodes' lifelines: %s", std::strerror(errno));
  }
  offer_.port = ntohs(any.sin_port);
  if (getrandom(&offer_.token, sizeof offer_.token, 0) != sizeof offer_.token) {
    fatal("cannot draw the lifelines' token: %s", std::strerror(errno));
  }
  find_addresses(offer_);
}

peer_lifelines::~peer_lifelines() {
  current.store(nullptr, std::memory_order_release);
  if (watcher_.joinable()) {
    const std::uint64_t one = 1;
    (void)!write(stop_, &one, sizeof one);
    watcher_.join();
  }
  for (int fd : links_) {
    if (fd >= 0) close(fd);
  }
  if (listener_ >= 0) close(listener_);
  close(stop_);
}

void peer_lifelines::connect(const lifeline_offer& node0, const std::vector<std::string>& hosts,
                             unsigned timeout_ms) {
  if (nodes_ < 2) return;
  if (self_ == 0) {
    accept_all(hosts, timeout_ms);
  } else {
    connect_to_node0(node0, hosts, timeout_ms);
  }
}

void peer_lifelines::accept_all(const std::vector<std::string>& hosts, unsigned timeout_ms) {
  const clock::time_point deadline = clock::now() + std::chrono::milliseconds(timeout_ms);
  node_id joined = 1;
  while (joined < nodes_) {
    if (!wait_for(listener_, POLLIN, deadline)) {
      std::string missing;
      for (node_id n = 1; n < nodes_; ++n) {
        if (links_[n] >= 0) continue;
        missing.append(" ").append(std::to_string(n)).append(" (host ").append(hosts[n]).append(")");
      }
      fatal("these nodes did not open their lifeline to node 0 within %u ms:%s", timeout_ms,
            missing.c_str());
    }
    const int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;  // gone before we took it, or EAGAIN: wait again
    hello h{};
    const auto hello_deadline = std::min(deadline, clock::now() + std::chrono::seconds(2));
    if (!read_all(fd, &h, sizeof h, hello_deadline) || h.token != offer_.token || h.node == 0 ||
        h.node >= nodes_ || links_[h.node] >= 0 || !write_all(fd, &offer_.token, sizeof offer_.token)) {
      close(fd);  // not one of ours, or a duplicate
      continue;
    }
    keep_alive(fd, h.node);
    links_[h.node] = fd;
    ++joined;
  }
  close(listener_);
  listener_ = -1;
}

void peer_lifelines::connect_to_node0(const lifeline_offer& node0,
                                      const std::vector<std::string>& hosts, unsigned timeout_ms) {
  const clock::time_point deadline = clock::now() + std::chrono::milliseconds(timeout_ms);
  std::string tried;
  // Round after round until the deadline: node 0 may still be wiring up.
  while (clock::now() < deadline) {
    tried.clear();
    for (std::uint16_t i = 0; i < node0.address_count; ++i) {
      const std::string where = dotted(node0.addresses[i]) + ":" + std::to_string(node0.port);
      const auto attempt_deadline = std::min(deadline, clock::now() + std::chrono::seconds(2));
      std::string error;
      const int fd = connect_before(node0.addresses[i], node0.port, attempt_deadline, error);
      if (fd < 0) {
        tried.append(" ").append(where).append(" (").append(error).append(")");
        continue;
      }
      const hello h{node0.token, self_, 0};
      std::uint64_t answer = 0;
      if (write_all(fd, &h, sizeof h) && read_all(fd, &answer, sizeof answer, attempt_deadline) &&
          answer == node0.token) {
        keep_alive(fd, 0);
        links_[0] = fd;
        return;
      }
      close(fd);
      tried.append(" ").append(where).append(" (not node 0 of this run)");
    }
    if (node0.address_count == 0) break;
    poll(nullptr, 0, 100);
  }
  fatal("cannot open a lifeline to node 0 (host %s) within %u ms; tried:%s", hosts[0].c_str(),
        timeout_ms, tried.empty() ? " no address" : tried.c_str());
}

void peer_lifelines::watch(lost_fn on_lost) {
  if (nodes_ < 2) return;
  on_lost_ = std::move(on_lost);
  watcher_ = std::thread([this] { watch_loop(); });
}

void peer_lifelines::watch_loop() {
  std::vector<pollfd> waits;
  std::vector<node_id> peers;  // by index into waits, after the stop eventfd
  waits.push_back({stop_, POLLIN, 0});
  for (node_id n = 0; n < nodes_; ++n) {
    if (links_[n] < 0) continue;
    waits.push_back({links_[n], POLLIN, 0});
    peers.push_back(n);
  }
  while (waits.size() > 1) {
    if (poll(waits.data(), waits.size(), -1) < 0) {
      if (errno == EINTR) continue;
      fatal("waiting on the lifelines failed: %s", std::strerror(errno));
    }
    if (waits[0].revents != 0) return;
    for (std::size_t i = 1; i < waits.size(); ++i) {
      if (waits[i].revents == 0) continue;
      char byte;
      const ssize_t got = recv(waits[i].fd, &byte, 1, MSG_DONTWAIT);
      if (got > 0 || (got < 0 && (errno == EAGAIN || errno == EINTR))) continue;
      const int error = got == 0 ? 0 : errno;
      const node_id peer = peers[i - 1];
      if (error == ETIMEDOUT || error == EHOSTUNREACH || error == ENETUNREACH) {
        on_lost_(peer, true,
                 std::string("its host stopped answering on the lifeline (") +
                     std::strerror(error) + ")");
      } else {
        on_lost_(peer, false,
                 error == 0 ? std::string("it closed its lifeline (the process ended)")
                            : std::string("its lifeline failed: ") + std::strerror(error));
      }
      waits.erase(waits.begin() + static_cast<std::ptrdiff_t>(i));
      peers.erase(peers.begin() + static_cast<std::ptrdiff_t>(i - 1));
      --i;
    }
  }
}

void peer_lifelines::drop_in_child() {
  peer_lifelines* mine = current.load(std::memory_order_acquire);
  if (mine == nullptr) return;
  for (int& fd : mine->links_) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
}

}  // namespace dstd::rt
