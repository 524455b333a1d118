// Status pipe reading; see status_reader.hpp.
#include "runtime/launch/status_reader.hpp"

#include <unistd.h>

#include <cerrno>

#include "runtime/common/launch_contract.hpp"
#include "runtime/launch/fd_io.hpp"

namespace dstd::launch {

namespace {
constexpr std::size_t max_line = 2048;  // "S" lines are some hundred bytes; all < PIPE_BUF
}

status_reader::~status_reader() { close_fd(fd_); }

void status_reader::parse_line(const std::string& line, std::vector<status_event>& events) const {
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
  if ((kind == status_stats) != (k < line.size())) return;  // only "S" has more
  events.push_back({kind, static_cast<unsigned>(id), kind == status_stats ? line.substr(k + 1) : ""});
}

void status_reader::drain(std::vector<status_event>& events) {
  if (fd_ < 0) return;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) {  // no writer left: nodes and their children are gone
      close_fd(fd_);
      return;
    }
    if (n < 0) return;  // EAGAIN: all read
    for (ssize_t k = 0; k < n; ++k) {
      if (buf[k] == '\n') {
        if (partial_.size() <= max_line) parse_line(partial_, events);  // else cut: dropped
        partial_.clear();
      } else if (partial_.size() <= max_line) {
        partial_ += buf[k];
      }
    }
  }
}

}  // namespace dstd::launch
