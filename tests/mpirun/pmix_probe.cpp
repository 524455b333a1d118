// pmix_probe: a dstd program that, under mpirun, reports what the PMIx
// wire-up left behind on every node.
//
// Why: libpmix and the libraries it drives (libevent, hwloc) keep their
// locks in memory they malloc, in the global heap; unless they count as
// runtime code (runtime/common/runtime_libraries.hpp), libdstd's pthread
// interposer serves those locks cluster-wide, as it does the program's
// shared objects, while they are one node's private state. A run without
// the naming still passed (the locks were uncontended), so each node
// checks that their code is the runtime's, and node 0 prints one line a
// node, with the variable the node took its rank from.
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <dstd/dstd.hpp>
#include <dstd/thread>
#include <vector>

#include "runtime/common/runtime_libraries.hpp"
#include "runtime/transport/launch_info.hpp"

namespace {

// (Out of line: runtime_libraries.hpp says why.)
bool runtime_code(const char* symbol) {
  void* f = dlsym(RTLD_DEFAULT, symbol);
  return f != nullptr && dstd::rt::in_runtime_library_from_outside(reinterpret_cast<std::uintptr_t>(f));
}

const char* whose(bool runtime) { return runtime ? "runtime" : "PROGRAM"; }

struct seen {
  const char* rank_variable = nullptr;
  bool pmix = false, event = false, hwloc = false;
};

}  // namespace

// Each node looks at its own process; node 0 prints what they saw, in order.
int main() {
  std::vector<seen> nodes(dstd::node_count());
  std::vector<dstd::thread> on_each;
  for (unsigned n = 0; n < nodes.size(); ++n) {
    on_each.push_back(dstd::spawn_on(n, [&nodes, n] {
      nodes[n] = {dstd::rt::current_launch().rank_variable, runtime_code("PMIx_Init"),
                  runtime_code("event_base_loop"), runtime_code("hwloc_topology_init")};
    }));
  }
  for (auto& t : on_each) t.join();
  for (unsigned n = 0; n < nodes.size(); ++n) {
    std::printf("node %u of %zu by %s: libpmix %s, libevent %s, hwloc %s\n", n, nodes.size(),
                nodes[n].rank_variable ? nodes[n].rank_variable : "-", whose(nodes[n].pmix),
                whose(nodes[n].event), whose(nodes[n].hwloc));
  }
  return 0;
}
