// The SIGSEGV handler that turns page faults on cache frames into coherence
// actions, and the program's own SIGSEGV handler beside it.
//
// Why SIGSEGV and mprotect rather than userfaultfd: cache frames need three
// kinds of fault (no access, read-only written, and none for home pages),
// and write-protect faults on shared memory through userfaultfd need a newer
// kernel than Debian 12's; a signal is handled on the faulting thread with
// no extra thread hop.
//
// Why libdstd interposes sigaction() and signal(): a program may install a
// SIGSEGV handler of its own (guard pages, a garbage collector's barriers),
// before dstd boots (a static constructor) or after (in main). dstd's
// handler must stay the one the kernel calls, or coherence silently stops;
// the program's must still get every fault that is not on a cache frame. So
// once dstd's handler is in, the program's SIGSEGV disposition is kept here
// (and reported back by sigaction, as if it were installed), and a fault
// dstd does not own is passed to it. With no handler of the program's (or
// SIG_DFL / SIG_IGN), the default disposition is restored and the access
// faults again: the ordinary segmentation fault, as in a program without
// dstd.
#include "runtime/coherence/fault_signal.hpp"

#include <dlfcn.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "runtime/coherence/coherence.hpp"
#include "runtime/coherence/spin_lock.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/heap/running_stack.hpp"

namespace dstd::rt::coherence {

namespace {

using sigaction_fn = int (*)(int, const struct sigaction*, struct sigaction*);

sigaction_fn real_sigaction() {
  static const auto fn = reinterpret_cast<sigaction_fn>(dlsym(RTLD_NEXT, "sigaction"));
  if (fn == nullptr) {
    static const char msg[] = "dstd: cannot find libc's sigaction\n";
    ssize_t ignored = ::write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(127);
  }
  return fn;
}

// The program's SIGSEGV disposition while dstd's handler is installed. The
// lock is held only to copy the struct (no access to global memory under
// it, so no fault can reenter it).
spin_lock program_action_lock;
struct sigaction program_action {};
bool ours_installed = false;  // set once, before any thread but main runs

struct sigaction program_segv_action() {
  std::lock_guard<spin_lock> guard(program_action_lock);
  return program_action;
}

// A fault that is not dstd's: the program's handler, or the ordinary crash.
void pass_to_program(int sig, siginfo_t* info, void* context) {
  const struct sigaction app = program_segv_action();
  const bool has_function = (app.sa_flags & SA_SIGINFO) != 0
                                ? app.sa_sigaction != nullptr
                                : app.sa_handler != SIG_DFL && app.sa_handler != SIG_IGN;
  if (!has_function) {
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    real_sigaction()(SIGSEGV, &dfl, nullptr);  // the access faults again, and the process ends
    return;
  }
  if ((app.sa_flags & SA_RESETHAND) != 0) {
    std::lock_guard<spin_lock> guard(program_action_lock);
    program_action.sa_handler = SIG_DFL;
    program_action.sa_flags &= ~SA_SIGINFO;
  }
  sigset_t saved;
  pthread_sigmask(SIG_BLOCK, &app.sa_mask, &saved);  // as the kernel would have
  if ((app.sa_flags & SA_SIGINFO) != 0) {
    app.sa_sigaction(sig, info, context);
  } else {
    app.sa_handler(sig);
  }
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
}

void on_segv(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const auto* uc = static_cast<const ucontext_t*>(context);
  report_if_stack_overflow(reinterpret_cast<std::uintptr_t>(info->si_addr));  // ends the run
  const bool write = (uc->uc_mcontext.gregs[REG_ERR] & 0x2) != 0;  // x86-64 page-fault W bit
  const bool handled = handle_fault(info->si_addr, write);
  errno = saved_errno;
  if (!handled) pass_to_program(sig, info, context);
}

}  // namespace

void install_fault_handler() {
  if (ours_installed) return;  // called at boot (main thread, before any other runs)
  struct sigaction action {}, previous {};
  action.sa_sigaction = on_segv;
  // SA_NODEFER: the program's handler, called from ours, may itself touch
  // global memory (its statics are shared) and fault on a cache frame.
  // SA_ONSTACK: a fault in a fiber stack's guard region (an overflow) has
  // no stack left to run on; threads that run fibers have a signal stack
  // (running_stack.hpp). The handler never parks (coherence.cpp's
  // no_park_scope), so one signal stack per OS thread is enough.
  action.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  if (real_sigaction()(SIGSEGV, &action, &previous) != 0) {
    fatal("cannot install the page fault handler: %s", std::strerror(errno));
  }
  {
    std::lock_guard<spin_lock> guard(program_action_lock);
    program_action = previous;
  }
  ours_installed = true;
}

}  // namespace dstd::rt::coherence

namespace coherence = dstd::rt::coherence;

// The program's sigaction(): SIGSEGV's disposition is kept aside while
// dstd's handler is installed (see the top of this file); everything else
// goes to libc.
extern "C" [[gnu::visibility("default")]] int sigaction(int sig, const struct sigaction* act,
                                                        struct sigaction* old) {
  if (sig != SIGSEGV || !coherence::ours_installed) {
    return coherence::real_sigaction()(sig, act, old);
  }
  struct sigaction wanted {};
  if (act != nullptr) wanted = *act;  // copied outside the lock: *act may fault
  struct sigaction before {};
  {
    std::lock_guard<coherence::spin_lock> guard(coherence::program_action_lock);
    before = coherence::program_action;
    if (act != nullptr) coherence::program_action = wanted;
  }
  if (old != nullptr) *old = before;
  return 0;
}

// glibc's signal() does not go through sigaction(), so it is interposed too,
// with glibc's (BSD) semantics: the handler stays installed, calls restart.
extern "C" [[gnu::visibility("default")]] sighandler_t signal(int sig, sighandler_t handler) {
  struct sigaction act {}, old {};
  act.sa_handler = handler;
  act.sa_flags = SA_RESTART;
  sigemptyset(&act.sa_mask);
  if (sig > 0 && sig < NSIG) sigaddset(&act.sa_mask, sig);  // as glibc's signal() does
  if (sig == SIGSEGV && coherence::ours_installed) {
    sigaction(sig, &act, &old);
    return old.sa_handler;
  }
  if (coherence::real_sigaction()(sig, &act, &old) != 0) return SIG_ERR;
  return old.sa_handler;
}
