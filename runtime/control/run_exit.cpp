// See run_exit.hpp.
#include "runtime/control/run_exit.hpp"

#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "runtime/common/fatal.hpp"
#include "runtime/control/boot.hpp"
#include "runtime/control/forwarded_output.hpp"
#include "runtime/control/node_env.hpp"
#include "runtime/sched/thread_exit.hpp"
#include "runtime/transport/handler_ids.hpp"
#include "runtime/transport/typed_handler.hpp"

namespace dstd::rt {

namespace {

enum class how : std::uint8_t { exit, quick_exit };

struct exit_request {
  std::int32_t status;
  how kind;
};

// another node -> node 0: end the run as exit(status) or quick_exit(status).
constexpr handler_decl<exit_request, no_bytes> exit_call{handler_ids::exit_request};

using exit_fn = void (*)(int);

[[noreturn]] void call_libc(how kind, int status) {
  static const exit_fn libc_exit = reinterpret_cast<exit_fn>(dlsym(RTLD_NEXT, "exit"));
  static const exit_fn libc_quick_exit =
      reinterpret_cast<exit_fn>(dlsym(RTLD_NEXT, "quick_exit"));
  const exit_fn f = kind == how::exit ? libc_exit : libc_quick_exit;
  if (f != nullptr) f(status);
  _exit(status);  // no libc exit found: at least end with the status
}

[[noreturn]] void wait_for_the_end() {
  for (;;) pause();
}

// The thread running the program's end on this node: the first to call
// exit; a second one waits for the process to end (an atexit handler that
// calls exit again is the same thread and goes on, as in glibc).
std::atomic<pid_t> exiting_thread{0};

[[noreturn]] void end_here(how kind, int status) {
  const pid_t me = gettid();
  pid_t expected = 0;
  if (!exiting_thread.compare_exchange_strong(expected, me) && expected != me)
    wait_for_the_end();
  call_libc(kind, status);
}

[[noreturn]] void end_everywhere(how kind, int status) {
  // exit() first destroys the calling thread's thread_local objects (glibc
  // does it for its own threads; a dstd thread's are on its own list);
  // quick_exit does not.
  if (kind == how::exit) sched::run_thread_exit_destructors();
  const node_env& env = current_node_env();
  if (!booted() || env.self == 0) end_here(kind, status);
  transport& t = *current_transport();
  if (t.on_service_thread()) {
    fatal("%s() was called from a message handler; the run cannot end from there",
          kind == how::exit ? "exit" : "quick_exit");
  }
  // What this node's threads wrote comes before what node 0's handlers
  // write; its other streams are flushed as exit would.
  std::fflush(nullptr);
  flush_forwarded_output();
  send(t, 0, exit_call, exit_request{status, kind});
  wait_for_the_end();
}

// Node 0: exit in a thread of its own, not in the handler (the service
// thread must go on serving, end_run needs it).
void* run_exit_request(void* arg) {
  const exit_request r = *static_cast<exit_request*>(arg);
  delete static_cast<exit_request*>(arg);
  end_here(r.kind, r.status);
}

void on_exit_request(message& m) {
  auto* r = new exit_request(m.payload_as<exit_request>());
  pthread_t thread;
  if (pthread_create(&thread, nullptr, run_exit_request, r) != 0)
    fatal("cannot start a thread to end the run as node %u asked", m.from());
  pthread_detach(thread);
}

}  // namespace

void register_exit_handlers() { register_handler(exit_call, &on_exit_request); }

void exit_run(int status) { end_here(how::exit, status); }

}  // namespace dstd::rt

extern "C" [[gnu::visibility("default")]] void exit(int status) noexcept {
  dstd::rt::end_everywhere(dstd::rt::how::exit, status);
}

extern "C" [[gnu::visibility("default")]] void quick_exit(int status) noexcept {
  dstd::rt::end_everywhere(dstd::rt::how::quick_exit, status);
}
