// See boot.hpp.
#include "runtime/control/boot.hpp"
#include "runtime/control/aslr_reexec.hpp"

#include <dlfcn.h>
#include <sys/personality.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ios>
#include <memory>
#include <vector>

#include "runtime/coherence/coherence.hpp"
#include "runtime/coherence/fault_signal.hpp"
#include "runtime/common/chaos.hpp"
#include "runtime/common/settings.hpp"
#include "runtime/common/trace.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/futex.hpp"
#include "runtime/common/launch_contract.hpp"
#include "runtime/control/fork_guard.hpp"
#include "runtime/control/forwarded_output.hpp"
#include "runtime/control/identity.hpp"
#include "runtime/control/launcher_link.hpp"
#include "runtime/control/node_counters.hpp"
#include "runtime/control/node_env.hpp"
#include "runtime/control/placement.hpp"
#include "runtime/control/program_constructors.hpp"
#include "runtime/control/run_exit.hpp"
#include "runtime/control/sanitizer_symbolizer.hpp"
#include "runtime/transport/peer_lifelines.hpp"
#include "runtime/control/shared_handlers.hpp"
#include "runtime/heap/address_space.hpp"
#include "runtime/heap/remote_free.hpp"
#include "runtime/heap/static_region.hpp"
#include "runtime/sched/main_fiber.hpp"
#include "runtime/sync/lock_table.hpp"
#include "runtime/transport/handler_ids.hpp"
#include "runtime/transport/typed_handler.hpp"
#include "runtime/transport/backend.hpp"

namespace dstd::rt {

namespace {

using libc_start_main_fn = int (*)(main_fn, int, char**, void (*)(), void (*)(), void (*)(),
                                   void*);

main_fn application_main = nullptr;
// Deliberately leaked: it must outlive every static destructor.
transport* node_transport = nullptr;
bool node_booted = false;
std::atomic<std::uint32_t> shutdown_requested{0};

// One status line, "<what> <id><rest>" (launch_contract.hpp), in one
// write (< PIPE_BUF, so it arrives whole).
void tell_launcher(char what, const char* rest = "") {
  char line[1100];
  const int n = std::snprintf(line, sizeof line, "%c %u%s\n", what, current_node_env().self, rest);
  if (n < 0 || static_cast<std::size_t>(n) >= sizeof line) return;
  send_status_line(line, static_cast<std::size_t>(n));
}

// A forked child has a private copy of global memory (fork_guard.hpp); it
// also leaves the run: no transport, frees of remote blocks dropped.
void on_fork_child() {
  set_connected(false);
  node_transport = nullptr;
  node_booted = false;
  drop_remote_frees();
  drop_launcher_link_in_child();
  peer_lifelines::drop_in_child();
}

// A static libdstd puts the runtime's own variables in the program's static
// data, which dstd shares between nodes: every node would run on node 0's.
void refuse_static_runtime_on_many_nodes(const node_env& env) {
  std::uintptr_t begin = 0, end = 0;
  find_static_region(begin, end);
  const auto mine = reinterpret_cast<std::uintptr_t>(&node_transport);
  if (env.nodes > 1 && mine >= begin && mine < end) {
    fatal("this program links libdstd statically (libdstd.a), which runs on one node only; "
          "link the shared libdstd to run on %u nodes", env.nodes);
  }
}

void boot() {
  connect_launcher_link();  // a remote node's lifeline, before anything can fail
  start_sanitizer_symbolizer();  // before any dstd thread could report
  // Every setting is checked now, on every node, before anyone joins: a bad
  // value ends the run at its start, not when first used.
  current_settings();
  set_up_forwarded_output();
  register_runtime_handlers();
  chaos::configure_from_env();
  const node_env& env = current_node_env();
  trace::configure_from_env(env.self, env.has_launcher);
  if (env.launched && env.nodes > 1 && !(personality(0xffffffff) & ADDR_NO_RANDOMIZE)) {
    fatal("address-space randomization is on for this node%s; the nodes of a run must share "
          "addresses: start the program with dstdrun, or let it re-execute itself with "
          "personality(ADDR_NO_RANDOMIZE)",
          reexecuted_without_aslr() ? " even after re-executing itself without it" : "");
  }
  refuse_static_runtime_on_many_nodes(env);
  ensure_address_space();
  share_static_region();
  // The address space asked the backend for its home memory already (it had
  // to, for the first malloc); now that the static data's extent is known,
  // the backend gets the whole table of regions it serves.
  node_transport = make_transport(current_launch(), global_regions()).release();
  set_connected(true);
  join_record mine = describe_this_node(env.self);
  placement::describe(mine);
  lock_table::describe(mine);
  auto records = node_transport->rendezvous(mine, env.join_timeout_ms);
  check_same_program(records, env.self);
  placement::init(records);
  lock_table::init(records);
  enable_remote_frees();
  coherence::init();
  coherence::install_fault_handler();  // at one node too: stack overflows are reported
  set_fork_child_hook(on_fork_child);
  if (env.self == 0 && env.nodes > 1) share_user_registrations();
  node_booted = true;
  tell_launcher(launch::status_joined);
  // Only now may handlers run: a node that failed in a handler before
  // telling dstdrun it joined would be reported as never having joined.
  // Messages sent to us meanwhile wait in our rings.
  node_transport->start();
}

// node 0 -> the others: the program is over; they answer, then leave.
constexpr handler_decl<no_bytes, no_bytes> shutdown{handler_ids::shutdown};

void on_shutdown(message& m) {
  node_transport->run_ending();
  m.reply(nullptr, 0);
  shutdown_requested.store(1, std::memory_order_release);
  futex::wake_all(shutdown_requested, futex::scope::process_private);
}

// Nodes other than 0: the service thread does the work; the main thread only
// waits for the end of the program.
// DSTD_STATS (dstdrun --stats): each node's counters at the end, in one
// "S" line to dstdrun (which prints them as one table), or, with no
// dstdrun, one line on stderr.
void report_stats_if_asked() {
  if (!current_settings().stats) return;
  char fields[1024];  // 17 fields of at most 43 characters fit
  format_stats_fields(fields, sizeof fields);
  const node_env& env = current_node_env();
  if (!env.has_launcher) {
    std::fprintf(stderr, "dstd stats: node %u:%s\n", env.self, fields);
  } else {
    tell_launcher(launch::status_stats, fields);
  }
}

[[noreturn]] void serve_until_shutdown() {
  while (shutdown_requested.load(std::memory_order_acquire) == 0) {
    futex::wait(shutdown_requested, 0, futex::scope::process_private);
  }
  node_transport->drain();  // the reply to the shutdown message, among others
  report_stats_if_asked();
  trace::write_at_exit();
  tell_launcher(launch::status_leaving);
  // Every stream, named by nothing of the program's: node 0 may be gone by
  // now, and `stdout` itself is the executable's (a copy relocation in its
  // .bss, shared and homed at node 0), which a fault could not fetch.
  std::fflush(nullptr);
  _exit(0);
}

// Node 0, at exit: tell every other node to leave. Registered before the
// executable's static constructors run, so it runs after their static
// destructors (which may still need the other nodes: a global thread pool
// joining its threads) and after main's atexit handlers, and before the
// shared libraries' destructors (rtld_fini, registered before it by glibc).
void end_run() {
  if (!node_booted) return;
  if (node_transport->on_service_thread()) {
    fatal("exit() was called from a message handler; the run cannot shut down from there");
  }
  const node_id nodes = node_transport->nodes();
  std::vector<std::vector<std::byte>> replies(nodes);
  completion acks;
  node_transport->run_ending();
  for (node_id n = 1; n < nodes; ++n) {
    acks.expect();
    node_transport->post_call(n, shutdown.id, nullptr, 0, replies[n], acks);
  }
  acks.wait();
  // The others are leaving: from now on this node is alone (the shared
  // libraries' destructors still run, and lock mutexes).
  coherence::leave_run();
  drop_remote_frees();
  report_stats_if_asked();
  trace::write_at_exit();
  node_transport->stop();
  tell_launcher(launch::status_leaving);
}

// glibc calls this in place of its own call of the executable's static
// constructors (program_constructors.hpp): the node boots first, so a
// constructor may start threads; then node 0 alone runs the constructors,
// and every other node serves until the end of the run.
void start_node(int argc, char** argv, char** envp) {
  boot();
  if (current_node_env().self != 0) serve_until_shutdown();
  std::atexit(end_run);
  std::at_quick_exit(end_run);
  run_program_constructors(argc, argv, envp);
}

// Node 0 only, after the static constructors.
int node_main(int argc, char** argv, char** envp) {
  exit_run(run_main_on_fiber(application_main, argc, argv, envp));
}

// The standard streams on every node. With GCC 12, `#include <iostream>`
// puts the streams' initializer among the including program's static
// constructors, which now run on node 0 only; libdstd's own initializer
// (a shared library's constructors run on every node) sets up std::cout
// and friends wherever a thread may print.
const std::ios_base::Init standard_streams;

}  // namespace

void register_boot_handlers() { register_handler(shutdown, &on_shutdown); }

bool booted() { return node_booted; }
transport* current_transport() { return node_transport; }

}  // namespace dstd::rt

// The program's entry goes through here (see boot.hpp). glibc 2.34 versioned
// the symbol; ask for that version first, then for whatever is there.
extern "C" [[gnu::visibility("default")]] int __libc_start_main(
    dstd::rt::main_fn main, int argc, char** argv, void (*init)(), void (*fini)(),
    void (*rtld_fini)(), void* stack_end) {
  using dstd::rt::libc_start_main_fn;
  void* real = dlvsym(RTLD_NEXT, "__libc_start_main", "GLIBC_2.34");
  if (real == nullptr) real = dlsym(RTLD_NEXT, "__libc_start_main");
  if (real == nullptr) {
    static const char msg[] = "dstd: cannot find glibc's __libc_start_main\n";
    ssize_t ignored = ::write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(127);
  }
  if (init != nullptr) {  // a program linked before glibc 2.34 passes its own
    static const char msg[] =
        "dstd: this program was linked against a glibc older than 2.34; relink it\n";
    ssize_t ignored = ::write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(127);
  }
  dstd::rt::reexec_without_aslr_if_needed(argv);
  dstd::rt::application_main = main;
  return reinterpret_cast<libc_start_main_fn>(real)(
      &dstd::rt::node_main, argc, argv, reinterpret_cast<void (*)()>(&dstd::rt::start_node), fini,
      rtld_fini, stack_end);
}
