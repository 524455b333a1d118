// Signal setup for dstdrun and its nodes; see launch_signals.hpp.
#include "runtime/launch/launch_signals.hpp"

#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dstd::launch {

namespace {

constexpr int interrupt_signals[] = {SIGINT, SIGTERM, SIGHUP};

bool is_ignored(int sig) {
  struct sigaction old {};
  return sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN;
}

void set_disposition(int sig, void (*handler)(int)) {
  struct sigaction sa {};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, nullptr);
}

}  // namespace

launch_signals::~launch_signals() {
  if (fd_ >= 0) close(fd_);
}

bool launch_signals::setup() {
  // Children must be reapable even if our parent left SIGCHLD ignored, and a
  // closed stdout must not kill dstdrun while its nodes still run.
  set_disposition(SIGCHLD, SIG_DFL);
  set_disposition(SIGPIPE, SIG_IGN);

  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  for (int sig : interrupt_signals)
    if (!is_ignored(sig)) sigaddset(&set, sig);
  if (sigprocmask(SIG_BLOCK, &set, nullptr) != 0) return false;
  fd_ = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  return fd_ >= 0;
}

launch_signals::pending launch_signals::read_pending() {
  pending p;
  signalfd_siginfo info[16];
  for (;;) {
    ssize_t n = read(fd_, info, sizeof info);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (std::size_t k = 0; k < static_cast<std::size_t>(n) / sizeof info[0]; ++k) {
      const int sig = static_cast<int>(info[k].ssi_signo);
      if (sig == SIGCHLD)
        p.child_exited = true;
      else if (p.interrupt == 0)
        p.interrupt = sig;
    }
  }
  return p;
}

void launch_signals::reset_in_child() {
  set_disposition(SIGCHLD, SIG_DFL);
  set_disposition(SIGPIPE, SIG_DFL);
  set_disposition(SIGTERM, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

const char* signal_name(int sig) {
  // sigabbrev_np (glibc 2.32+) gives "KILL"; keep a copy with the prefix.
  static thread_local char buf[32];
  const char* abbrev = sigabbrev_np(sig);
  if (abbrev == nullptr) return nullptr;
  std::strcpy(buf, "SIG");
  std::strncat(buf, abbrev, sizeof buf - 4);
  return buf;
}

}  // namespace dstd::launch
