// See forwarded_output.hpp.
#include "runtime/control/forwarded_output.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "runtime/common/kernel_sleep.hpp"
#include "runtime/control/node_env.hpp"

namespace dstd::rt {

namespace {

// Our own descriptors of the pipes dstdrun reads, or -1.
int forwarded[2] = {-1, -1};

int keep_if_pipe(int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) return -1;
  return fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

// Bytes written to the pipe and not yet read by dstdrun.
int unread(int fd) {
  int n = 0;
  return ioctl(fd, FIONREAD, &n) == 0 ? n : 0;
}

}  // namespace

void set_up_forwarded_output() {
  const node_env& env = current_node_env();
  if (!env.output_forwarded) return;
  if (env.output_to_tty) {
    std::fflush(stdout);
    std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  }
  forwarded[0] = keep_if_pipe(STDOUT_FILENO);
  forwarded[1] = keep_if_pipe(STDERR_FILENO);
}

void flush_forwarded_output() {
  std::fflush(stdout);
  std::fflush(stderr);
  for (int fd : forwarded) {
    if (fd < 0) continue;
    // dstdrun reads each pipe at least once per poll round; a short sleep
    // lets it run.
    while (unread(fd) > 0) kernel_sleep_ns(20'000);
  }
}

}  // namespace dstd::rt
