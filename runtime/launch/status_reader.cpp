// Status lines from the pipe and the lifelines; see status_reader.hpp.
#include "runtime/launch/status_reader.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/common/launch_contract.hpp"
#include "runtime/common/tcp_keepalive.hpp"
#include "runtime/launch/diag.hpp"
#include "runtime/launch/fd_io.hpp"

namespace dstd::launch {

namespace {
constexpr std::size_t max_line = 2048;  // "S" lines are some hundred bytes; all < PIPE_BUF
// A connection must say who it is within this long.
constexpr auto hello_timeout = std::chrono::seconds(10);
constexpr std::size_t max_unnamed_connections = 64;

std::string peer_of(const sockaddr_in& a) {
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &a.sin_addr, text, sizeof text);
  return std::string(text) + ":" + std::to_string(ntohs(a.sin_port));
}
}  // namespace

status_reader::status_reader(int pipe_fd, unsigned nodes) : nodes_(nodes), linked_(nodes, false) {
  source pipe;
  pipe.fd = pipe_fd;
  sources_.push_back(std::move(pipe));
}

status_reader::~status_reader() {
  for (source& s : sources_) close_fd(s.fd);
  close_fd(listen_fd_);
}

void status_reader::accept_links(int listen_fd, std::string token) {
  listen_fd_ = listen_fd;
  set_nonblocking(listen_fd_);
  token_ = std::move(token);
}

void status_reader::poll_fds(std::vector<pollfd>& fds) const {
  if (listen_fd_ >= 0) fds.push_back({listen_fd_, POLLIN, 0});
  for (const source& s : sources_)
    if (s.fd >= 0) fds.push_back({s.fd, POLLIN, 0});
}

void status_reader::accept_waiting() {
  if (listen_fd_ < 0) return;
  for (;;) {
    sockaddr_in from{};
    socklen_t len = sizeof from;
    const int fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&from), &len,
                           SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // EAGAIN: none left (or out of descriptors: try again later)
    }
    std::size_t unnamed = 0;
    for (const source& s : sources_) unnamed += s.link && s.node < 0 && s.fd >= 0;
    if (unnamed >= max_unnamed_connections) {
      close(fd);
      continue;
    }
    set_lifeline_keepalive(fd);
    source s;
    s.fd = fd;
    s.link = true;
    s.peer = peer_of(from);
    s.since = clock::now();
    sources_.push_back(std::move(s));
  }
}

void status_reader::drain(std::vector<status_event>& events) {
  accept_waiting();
  for (std::size_t k = 0; k < sources_.size(); ++k)
    if (sources_[k].fd >= 0) read_source(sources_[k], events);
  drop_silent_connections(clock::now());
  // Forget closed connections (the pipe keeps its slot).
  for (std::size_t k = sources_.size(); k-- > 1;)
    if (sources_[k].fd < 0) sources_.erase(sources_.begin() + static_cast<std::ptrdiff_t>(k));
}

bool status_reader::read_source(source& s, std::vector<status_event>& events) {
  char buf[4096];
  for (;;) {
    const ssize_t n = read(s.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return true;  // all read
    if (n <= 0) {
      // The pipe: no writer left (nodes and their children are gone). A
      // lifeline: the node's end closed, or the connection failed.
      if (s.node >= 0)
        events.push_back({n == 0 ? status_link_closed : status_link_failed,
                          static_cast<unsigned>(s.node),
                          n == 0 ? "closed its connection to dstdrun without leaving"
                                 : std::string("lost its connection to dstdrun (") +
                                       std::strerror(errno) + ")"});
      close_fd(s.fd);
      return false;
    }
    for (ssize_t k = 0; k < n; ++k) {
      if (buf[k] == '\n') {
        const std::string line = std::move(s.partial);
        s.partial.clear();
        if (line.size() <= max_line && !take_line(s, line, events)) {
          close_fd(s.fd);
          return false;
        }
      } else if (s.partial.size() <= max_line) {
        s.partial += buf[k];  // a longer line is cut: dropped at its end
      }
    }
  }
}

bool status_reader::take_line(source& s, const std::string& line,
                              std::vector<status_event>& events) {
  if (s.link && s.node < 0) return check_hello(s, line, events);
  parse_line(line, s.node, events);
  return true;
}

// "<token> <id>": the connection is node id's lifeline.
bool status_reader::check_hello(source& s, const std::string& line,
                                std::vector<status_event>& events) {
  const auto space = line.find(' ');
  if (token_.empty() || space == std::string::npos || line.compare(0, space, token_) != 0 ||
      space != token_.size()) {
    say("dropped a connection from %s: wrong token", s.peer.c_str());
    return false;
  }
  const std::string id_text = line.substr(space + 1);
  unsigned long id = 0;
  for (char c : id_text) {
    if (c < '0' || c > '9' || id > nodes_) {
      id = nodes_;
      break;
    }
    id = id * 10 + static_cast<unsigned long>(c - '0');
  }
  if (id_text.empty() || id >= nodes_ || linked_[id]) {
    say("dropped a connection from %s: it claims to be node '%s', %s", s.peer.c_str(),
        id_text.c_str(), id < nodes_ ? "which is connected already" : "which is not in this run");
    return false;
  }
  linked_[id] = true;
  s.node = static_cast<int>(id);
  events.push_back({status_link_up, static_cast<unsigned>(id), ""});
  return true;
}

void status_reader::parse_line(const std::string& line, int only_node,
                               std::vector<status_event>& events) const {
  if (line.size() < 3 || line[1] != ' ') return;
  const char kind = line[0];
  if (kind != status_joined && kind != status_leaving && kind != status_stats) return;
  unsigned long id = 0;
  std::size_t k = 2;
  for (; k < line.size() && line[k] != ' '; ++k) {
    const char c = line[k];
    if (c < '0' || c > '9' || k > 12) return;
    id = id * 10 + static_cast<unsigned long>(c - '0');
  }
  if (k == 2 || id >= nodes_) return;
  if (only_node >= 0 && id != static_cast<unsigned long>(only_node)) return;
  if ((kind == status_stats) != (k < line.size())) return;  // only "S" has more
  events.push_back({kind, static_cast<unsigned>(id), kind == status_stats ? line.substr(k + 1) : ""});
}

void status_reader::drop_silent_connections(clock::time_point now) {
  for (source& s : sources_) {
    if (!s.link || s.node >= 0 || s.fd < 0 || now - s.since < hello_timeout) continue;
    say("dropped a connection from %s: it did not say which node it is", s.peer.c_str());
    close_fd(s.fd);
  }
}

status_reader::clock::time_point status_reader::hello_deadline() const {
  clock::time_point first = clock::time_point::max();
  for (const source& s : sources_)
    if (s.link && s.node < 0 && s.fd >= 0 && s.since + hello_timeout < first)
      first = s.since + hello_timeout;
  return first;
}

void status_reader::close_link(unsigned node) {
  for (source& s : sources_)
    if (s.node == static_cast<int>(node)) close_fd(s.fd);
}

}  // namespace dstd::launch
