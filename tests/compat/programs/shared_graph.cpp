// An object graph of std::shared_ptr nodes with std::weak_ptr back-edges to
// their parents (enable_shared_from_this to hand out more owners), shared
// by threads: first each walks the whole graph at once with the others,
// copying and dropping owners and locking parents through the weak edges;
// then each builds its own subtree, which it attaches under a mutex. Counts destructions with an atomic. Prints what
// the walks saw, the node count, and that every node was destroyed exactly
// once after the last owner went away.
#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace {

std::atomic<int> alive{0};

struct node : std::enable_shared_from_this<node> {
  explicit node(int v, const std::shared_ptr<node>& p) : value(v), parent(p) { ++alive; }
  ~node() { --alive; }
  int value;
  std::weak_ptr<node> parent;
  std::vector<std::shared_ptr<node>> children;
};

std::shared_ptr<node> build(int depth, int value, const std::shared_ptr<node>& parent) {
  auto n = std::make_shared<node>(value, parent);
  if (depth > 0) {
    for (int c = 0; c < 3; ++c) n->children.push_back(build(depth - 1, value * 3 + c + 1, n));
  }
  return n;
}

// Sum of values and of the parents' values reached through the weak edges.
long walk(const std::shared_ptr<node>& n) {
  long s = n->value;
  if (std::shared_ptr<node> p = n->parent.lock()) s += p->value;
  std::shared_ptr<node> self = n->shared_from_this();  // another owner, dropped on return
  for (const auto& c : self->children) s += walk(c);
  return s;
}

long count(const std::shared_ptr<node>& n) {
  long c = 1;
  for (const auto& k : n->children) c += count(k);
  return c;
}

}  // namespace

int main() {
  std::mutex attach;
  std::vector<long> seen(4);
  long nodes = 0;
  {
    std::shared_ptr<node> root = build(5, 0, nullptr);
    std::vector<std::thread> walkers, builders;
    for (int t = 0; t < 4; ++t) {
      walkers.emplace_back([&, t] { seen[static_cast<std::size_t>(t)] = walk(root); });
    }
    for (std::thread& t : walkers) t.join();
    for (int t = 0; t < 4; ++t) {
      builders.emplace_back([&, t] {
        std::shared_ptr<node> mine = build(3, 1000 + t, root);
        std::lock_guard<std::mutex> lock(attach);
        root->children.push_back(std::move(mine));
      });
    }
    for (std::thread& t : builders) t.join();
    nodes = count(root);
    std::printf("walks=%ld,%ld,%ld,%ld nodes=%ld alive=%d\n", seen[0], seen[1], seen[2], seen[3],
                nodes, alive.load());
  }
  std::printf("after=%d\n", alive.load());
  return 0;
}
