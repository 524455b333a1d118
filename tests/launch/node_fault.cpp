// node_fault: a dstd program that makes one node fail on purpose.
//
// Why: dstdrun's promise is that a failing node never goes unnoticed and
// never leaves the run hanging. Testing that needs a real dstd program whose
// nodes fail in chosen ways. Under dstdrun, main runs only on node 0; the
// other nodes run no user code but message handlers, so node 0 sends a
// message whose handler fails on the chosen node, then sleeps long enough
// that only dstdrun can end the run quickly.
//
//   node_fault kill|abort|exit3 NODE   that node dies (SIGKILL, SIGABRT, exit 3);
//                                      node 0 first prints when, on stderr
//   node_fault ok                      prints "ok from node 0 of N", exits 0
//   node_fault status7                 main returns 7
//   node_fault sleep                   main sleeps 60 s (for --timeout)
//   node_fault chatter                 node 0 queues 2000 messages at node 1,
//                                      each of which node 1 forwards to the
//                                      last node, prints "ok" and returns
//                                      (the run must still end cleanly)
//   node_fault short_message NODE      node 0 sends that node a runtime
//                                      message (futex_wake) with a 1-byte payload
//   node_fault bad_reply NODE          node 0 calls a handler on that node that
//                                      declares an 8-byte reply and sends 4
//   node_fault link_down NODE          that node takes its host's network
//                                      interface NODE_FAULT_LINK down (`ip link
//                                      set ... down`; a test's network namespace)
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dstd/dstd.hpp>
#include <thread>

#include "runtime/transport/handler_ids.hpp"
#include "runtime/transport/transport.hpp"
#include "runtime/transport/typed_handler.hpp"

namespace {

using dstd::rt::handler_id;
using dstd::rt::handler_registration;
using dstd::rt::message;

constexpr handler_id h_kill = dstd::rt::first_user_handler + 0;
constexpr handler_id h_abort = dstd::rt::first_user_handler + 1;
constexpr handler_id h_exit3 = dstd::rt::first_user_handler + 2;
constexpr dstd::rt::handler_decl<dstd::rt::no_bytes, std::uint64_t> h_bad_reply{
    dstd::rt::first_user_handler + 3};
constexpr handler_id h_link_down = dstd::rt::first_user_handler + 4;
constexpr handler_id h_ignore = dstd::rt::first_user_handler + 5;
constexpr handler_id h_forward = dstd::rt::first_user_handler + 6;

[[noreturn]] void die_by_sigkill() {
  raise(SIGKILL);
  _exit(99);  // not reached
}
[[noreturn]] void die_by_abort() { std::abort(); }
[[noreturn]] void die_by_exit3() { _exit(3); }

// Cuts this host off the network: the node lives on, unreachable.
void take_link_down() {
  const char* link = std::getenv("NODE_FAULT_LINK");
  if (link == nullptr) {
    std::fprintf(stderr, "node_fault: link_down needs NODE_FAULT_LINK (an interface)\n");
    _exit(2);
  }
  char* argv[] = {const_cast<char*>("ip"), const_cast<char*>("link"), const_cast<char*>("set"),
                  const_cast<char*>(link), const_cast<char*>("down"), nullptr};
  pid_t pid = 0;
  int status = 0;
  if (posix_spawnp(&pid, "ip", nullptr, nullptr, argv, environ) != 0 ||
      waitpid(pid, &status, 0) != pid || status != 0) {
    std::fprintf(stderr, "node_fault: ip link set %s down failed\n", link);
    _exit(2);
  }
}

void on_kill(message&) { die_by_sigkill(); }
void on_abort(message&) { die_by_abort(); }
void on_exit3(message&) { die_by_exit3(); }
void on_link_down(message&) { take_link_down(); }

const handler_registration kill_registration{h_kill, &on_kill};
const handler_registration abort_registration{h_abort, &on_abort};
const handler_registration exit3_registration{h_exit3, &on_exit3};
const handler_registration link_down_registration{h_link_down, &on_link_down};

void on_bad_reply(message& m) {
  const std::uint32_t half = 0;
  m.reply(&half, sizeof half);
}
const handler_registration bad_reply_registration{h_bad_reply, &on_bad_reply};

void on_ignore(message&) {}
const handler_registration ignore_registration{h_ignore, &on_ignore};

// Node 1's handler of h_forward: a little work, then a message on to the
// last node. Node 0 queues many of these and returns at once, so node 1's
// service thread is still forwarding when the last node, told before it
// reaches its own shutdown message, has left.
void on_forward(message&) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(20);
  while (std::chrono::steady_clock::now() < until) {
  }
  const auto last = static_cast<dstd::rt::node_id>(dstd::node_count() - 1);
  dstd::rt::current_transport()->post_send(last, h_ignore, nullptr, 0);
}
const handler_registration forward_registration{h_forward, &on_forward};

int usage() {
  std::fprintf(stderr,
               "usage: node_fault kill|abort|exit3|short_message|bad_reply|link_down NODE | ok | "
               "status7 | sleep | chatter\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const char* mode = argv[1];
  if (std::strcmp(mode, "ok") == 0) {
    std::printf("ok from node %u of %u\n", dstd::this_node(), dstd::node_count());
    return 0;
  }
  if (std::strcmp(mode, "status7") == 0) return 7;
  if (std::strcmp(mode, "chatter") == 0) {
    if (dstd::node_count() < 3) {
      std::fprintf(stderr, "node_fault: chatter needs three nodes\n");
      return 2;
    }
    for (int i = 0; i < 2000; ++i) dstd::rt::current_transport()->post_send(1, h_forward, nullptr, 0);
    std::printf("ok from node %u of %u\n", dstd::this_node(), dstd::node_count());
    return 0;
  }
  if (std::strcmp(mode, "sleep") == 0) {
    std::this_thread::sleep_for(std::chrono::seconds(60));
    return 0;
  }

  handler_id h = 0;
  void (*act)() = nullptr;
  if (std::strcmp(mode, "kill") == 0) {
    h = h_kill;
    act = die_by_sigkill;
  } else if (std::strcmp(mode, "abort") == 0) {
    h = h_abort;
    act = die_by_abort;
  } else if (std::strcmp(mode, "exit3") == 0) {
    h = h_exit3;
    act = die_by_exit3;
  } else if (std::strcmp(mode, "link_down") == 0) {
    h = h_link_down;
    act = take_link_down;
  } else if (std::strcmp(mode, "short_message") == 0) {
    h = dstd::rt::handler_ids::futex_wake;
  } else if (std::strcmp(mode, "bad_reply") == 0) {
    h = h_bad_reply.id;
  } else {
    return usage();
  }
  if (argc < 3) return usage();
  const unsigned long node = std::strtoul(argv[2], nullptr, 10);
  if (node >= dstd::node_count()) {
    std::fprintf(stderr, "node_fault: there is no node %lu in a run of %u\n", node,
                 dstd::node_count());
    return 2;
  }

  // When, on the wall clock, so that a test can tell how long the run
  // took to end after it (tests/mpirun/mpirun_test.sh).
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  std::fprintf(stderr, "node_fault: stopping node %lu at %lld ms\n", node,
               static_cast<long long>(now_ms.count()));
  std::fflush(stderr);
  const char one_byte = 0;
  if (node == 0 && act != nullptr)
    act();
  else if (h == h_bad_reply.id)
    dstd::rt::call(*dstd::rt::current_transport(), static_cast<dstd::rt::node_id>(node),
                   h_bad_reply, {});
  else if (h == dstd::rt::handler_ids::futex_wake)
    dstd::rt::current_transport()->post_send(static_cast<dstd::rt::node_id>(node), h, &one_byte, 1);
  else
    dstd::rt::current_transport()->post_send(static_cast<dstd::rt::node_id>(node), h, nullptr, 0);
  std::this_thread::sleep_for(std::chrono::seconds(60));
  std::fprintf(stderr, "node_fault: node %lu is still alive after 60 s\n", node);
  return 0;
}
