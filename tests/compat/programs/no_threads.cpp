// A program that starts no thread: at every node count only node 0 runs
// it, so no other node fetches a page. run_program.sh's check that a
// program's threads ran elsewhere relies on that.
#include <cstdio>
#include <memory>
#include <vector>

int main() {
  auto v = std::make_shared<std::vector<int>>(1000, 3);
  long sum = 0;
  for (int x : *v) sum += x;
  std::printf("sum=%ld\n", sum);
  return 0;
}
