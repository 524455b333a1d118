// dstdrun's own messages; see diag.hpp.
#include "runtime/launch/diag.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "runtime/launch/fd_io.hpp"

namespace dstd::launch {

void say(const char* fmt, ...) {
  char buf[1024];
  std::memcpy(buf, "dstdrun: ", 9);
  std::va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(buf + 9, sizeof buf - 10, fmt, ap);
  va_end(ap);
  std::size_t len = 9;
  if (n > 0) len += static_cast<std::size_t>(n) < sizeof buf - 10 ? static_cast<std::size_t>(n)
                                                                   : sizeof buf - 11;
  buf[len++] = '\n';
  write_all(2, buf, len);
}

}  // namespace dstd::launch
