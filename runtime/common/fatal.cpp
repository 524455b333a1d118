// See fatal.hpp.
#include "runtime/common/fatal.hpp"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>

#include "runtime/common/trace.hpp"

namespace dstd::rt {

namespace {

std::uint32_t log_node = 0;
std::uint32_t log_nodes = 1;

[[gnu::format(printf, 1, 0)]] void vreport(const char* fmt, va_list args) {
  char line[1024];
  int n = log_nodes > 1 ? std::snprintf(line, sizeof line, "dstd: node %u: ", log_node)
                        : std::snprintf(line, sizeof line, "dstd: ");
  n += std::vsnprintf(line + n, sizeof line - static_cast<std::size_t>(n) - 1, fmt, args);
  if (n > static_cast<int>(sizeof line) - 2) n = static_cast<int>(sizeof line) - 2;
  line[n++] = '\n';
  // One write: lines from several nodes sharing a terminal never interleave.
  ssize_t ignored = ::write(STDERR_FILENO, line, static_cast<std::size_t>(n));
  (void)ignored;
}

}  // namespace

void set_log_node(std::uint32_t node, std::uint32_t nodes) {
  log_node = node;
  log_nodes = nodes;
}

void fatal(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vreport(fmt, args);
  va_end(args);
  std::fflush(stdout);
  trace::write_before_dying();  // dstdrun --trace: this node's last events
  _exit(1);
}

void warn(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vreport(fmt, args);
  va_end(args);
}

}  // namespace dstd::rt
