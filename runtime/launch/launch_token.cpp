// See launch_token.hpp.
#include "runtime/launch/launch_token.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace dstd::launch {

bool make_launch_token(std::string& token) {
  std::uint8_t bytes[16];
  const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = read(fd, bytes + got, sizeof bytes - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      close(fd);
      return false;
    }
    got += static_cast<std::size_t>(n);
  }
  close(fd);
  static const char digits[] = "0123456789abcdef";
  token.clear();
  for (std::uint8_t b : bytes) {
    token += digits[b >> 4];
    token += digits[b & 15];
  }
  return true;
}

}  // namespace dstd::launch
