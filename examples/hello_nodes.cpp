// hello_nodes: the first demo. main runs on node 0 and asks every node,
// through the transport's messages, to print one line about itself; each node
// answers with its pid, so node 0 can also report who it heard from.
//
//   build/bin/dstdrun -n 4 build/bin/hello_nodes
//
// (Once dstd::thread exists this becomes a thread per node; for now it shows
// the layer every later feature stands on.)
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <dstd/dstd.hpp>

#include "runtime/transport/transport.hpp"

namespace {

constexpr dstd::rt::handler_id say_hello = dstd::rt::first_user_handler;

void on_say_hello(dstd::rt::message& m) {
  std::printf("hello from node %u of %u (pid %d)\n", dstd::this_node(), dstd::node_count(),
              static_cast<int>(getpid()));
  std::fflush(stdout);
  const int pid = static_cast<int>(getpid());
  m.reply(&pid, sizeof pid);
}
const dstd::rt::handler_registration registration{say_hello, &on_say_hello};

}  // namespace

int main() {
  dstd::rt::transport* t = dstd::rt::current_transport();
  for (dstd::node_id n = 0; n < dstd::node_count(); ++n) {
    std::vector<std::byte> reply = t->call(n, say_hello, nullptr, 0);
    int pid = 0;
    std::memcpy(&pid, reply.data(), sizeof pid);
    if (pid <= 0) {
      std::fprintf(stderr, "node %u sent no pid\n", n);
      return 1;
    }
  }
  std::printf("node 0 heard from all %u nodes\n", dstd::node_count());
  return 0;
}
