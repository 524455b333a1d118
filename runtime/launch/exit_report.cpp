// How a node ended, in words; see exit_report.hpp.
#include "runtime/launch/exit_report.hpp"

#include <sys/wait.h>

#include "runtime/launch/launch_signals.hpp"

namespace dstd::launch {

std::string describe_end(int wait_status) {
  if (WIFEXITED(wait_status)) return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) {
    const int sig = WTERMSIG(wait_status);
    const char* name = signal_name(sig);
    std::string s = "was killed by signal " + std::to_string(sig);
    const bool core = WCOREDUMP(wait_status);
    if (name != nullptr || core) {
      s += " (";
      s += name != nullptr ? name : "unknown signal";
      if (core) s += ", core dumped";
      s += ")";
    }
    return s;
  }
  return "ended with wait status " + std::to_string(wait_status);
}

int failure_exit_status(int wait_status) {
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) != 0) return WEXITSTATUS(wait_status);
  return 1;
}

}  // namespace dstd::launch
