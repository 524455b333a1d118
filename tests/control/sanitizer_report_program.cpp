// A signed overflow in a dstd thread on the last node. Built only with
// UBSan (DSTD_SANITIZE_UNDEFINED): the report's stack trace must name
// overflow_on_another_node, which needs the sanitizer's symbolizer to have
// started at boot (runtime/control/sanitizer_symbolizer.hpp); started at
// the report, by a raw fork on the thread's shared stack, it replaced the
// node's process instead and the trace had no names.
#include <climits>
#include <cstdio>
#include <dstd/thread>

__attribute__((noinline)) int overflow_on_another_node(int a) { return a + INT_MAX; }

int main(int argc, char**) {
  int r = 0;
  dstd::thread t = dstd::spawn_on(dstd::node_count() - 1,
                                  [&r, argc] { r = overflow_on_another_node(argc); });
  t.join();
  std::printf("%d\n", r);
  return 0;
}
