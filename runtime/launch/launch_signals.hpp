// The signals dstdrun reacts to, and how nodes get a clean signal state.
//
// Why: dstdrun watches its children and Ctrl-C with one poll loop, so
// SIGCHLD, SIGINT, SIGTERM and SIGHUP are blocked before any fork and read
// from a signalfd. Nodes must not inherit that: a node starts with an empty
// signal mask and default dispositions for what dstdrun changed, exactly as
// if it were started from the shell. The one thing kept from the shell is an
// inherited "ignore" of SIGINT/SIGHUP (nohup, background jobs of scripts):
// dstdrun then does not react to those either.
#pragma once

#include <signal.h>

namespace dstd::launch {

class launch_signals {
 public:
  launch_signals() = default;
  launch_signals(const launch_signals&) = delete;
  launch_signals& operator=(const launch_signals&) = delete;
  ~launch_signals();

  // Blocks the watched signals and opens the signalfd. Returns false with
  // errno set on failure.
  bool setup();

  int fd() const { return fd_; }

  // What arrived since the last call.
  struct pending {
    bool child_exited = false;
    int interrupt = 0;  // SIGINT, SIGTERM or SIGHUP (the first one), or 0
  };
  pending read_pending();

  // In a freshly forked node, before exec: empty mask, default dispositions
  // for SIGCHLD, SIGPIPE and SIGTERM. Async-signal-safe.
  static void reset_in_child();

 private:
  int fd_ = -1;
};

// "SIGKILL" for 9; "signal 77" style text for unknown numbers is left to the
// caller: returns null then.
const char* signal_name(int sig);

}  // namespace dstd::launch
