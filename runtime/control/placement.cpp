// See placement.hpp.
#include "runtime/control/placement.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "runtime/common/settings.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/layout.hpp"
#include "runtime/heap/address_space.hpp"
#include "runtime/sched/scheduler.hpp"
#include "runtime/sync/home_word.hpp"

namespace dstd::rt::placement {

namespace {

struct load_table {
  std::uint64_t threads[layout::max_nodes];  // home words
};

enum class policy { spread, local };

struct cluster {
  node_id self = 0;
  node_id nodes = 1;
  policy how = policy::spread;
  load_table* table = nullptr;  // on node 0
  unsigned workers[layout::max_nodes] = {};
  unsigned total_workers = 0;
  std::atomic<node_id> next_first{0};  // where the next search starts
};

cluster& state() {
  static cluster c;
  return c;
}

policy policy_from_env() {
  return current_settings().place_local ? policy::local : policy::spread;
}

}  // namespace

void describe(join_record& mine) {
  cluster& c = state();
  c.how = policy_from_env();
  mine.workers = sched::configured_workers();
  mine.placement_table = 0;
  if (mine.node == 0) {
    c.table = new load_table{};
    mine.placement_table = reinterpret_cast<std::uint64_t>(c.table);
  }
}

void init(const std::vector<join_record>& all) {
  cluster& c = state();
  c.nodes = static_cast<node_id>(all.size());
  c.table = reinterpret_cast<load_table*>(all[0].placement_table);
  c.total_workers = 0;
  for (std::size_t n = 0; n < all.size(); ++n) {
    c.workers[n] = all[n].workers;
    c.total_workers += all[n].workers;
  }
  const transport* t = current_transport();
  c.self = t != nullptr ? t->self() : 0;
}

node_id choose() {
  cluster& c = state();
  if (c.nodes <= 1 || c.how == policy::local || c.table == nullptr) return c.self;
  std::uint64_t threads[layout::max_nodes];
  if (locate(c.table).here) {
    for (node_id n = 0; n < c.nodes; ++n) threads[n] = at_home::load(&c.table->threads[n]);
  } else {
    current_transport()->read(threads, reinterpret_cast<gaddr>(c.table->threads),
                              c.nodes * sizeof(std::uint64_t));
  }
  // Least threads per worker (a/wa < b/wb  <=>  a*wb < b*wa); among equals
  // the search starts one node further each time, so a burst of threads
  // that each end at once still goes round the nodes.
  const node_id first = c.next_first.fetch_add(1, std::memory_order_relaxed) % c.nodes;
  node_id best = first;
  for (node_id i = 1; i < c.nodes; ++i) {
    const node_id n = (first + i) % c.nodes;
    if (threads[n] * c.workers[best] < threads[best] * c.workers[n]) best = n;
  }
  return best;
}

void thread_placed(node_id n) {
  cluster& c = state();
  if (c.nodes > 1 && c.table != nullptr) at_home::fetch_add(&c.table->threads[n], 1);
}

void thread_finished(node_id n) {
  cluster& c = state();
  if (c.nodes > 1 && c.table != nullptr) {
    at_home::fetch_add(&c.table->threads[n], ~std::uint64_t{0});
  }
}

unsigned cluster_workers() {
  const cluster& c = state();
  return c.total_workers != 0 ? c.total_workers : sched::configured_workers();
}

}  // namespace dstd::rt::placement
