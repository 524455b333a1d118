// The SIGSEGV handler that turns page faults on cache frames into coherence
// actions.
//
// Why SIGSEGV and mprotect rather than userfaultfd: cache frames need three
// kinds of fault (no access, read-only written, and none for home pages),
// and write-protect faults on shared memory through userfaultfd need a newer
// kernel than Debian 12's; a signal is handled on the faulting thread with
// no extra thread hop. A fault that is not on a cache frame is the
// program's own: the previous disposition is restored and the access faults
// again, as in a program without dstd.
#include <signal.h>
#include <ucontext.h>

#include <cerrno>
#include <cstring>

#include "runtime/coherence/coherence.hpp"
#include "runtime/common/fatal.hpp"

namespace dstd::rt::coherence {

namespace {

struct sigaction previous {};

void on_segv(int, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const auto* uc = static_cast<const ucontext_t*>(context);
  const bool write = (uc->uc_mcontext.gregs[REG_ERR] & 0x2) != 0;  // x86-64 page-fault W bit
  const bool handled = handle_fault(info->si_addr, write);
  errno = saved_errno;
  if (!handled) sigaction(SIGSEGV, &previous, nullptr);
}

}  // namespace

void install_fault_handler() {
  struct sigaction action {};
  action.sa_sigaction = on_segv;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGSEGV, &action, &previous) != 0) {
    fatal("cannot install the page fault handler: %s", std::strerror(errno));
  }
}

}  // namespace dstd::rt::coherence
