// Overflows a dstd thread's stack on the last node, so the run must end
// with "stack overflow in thread T on node N ..." (stack_overflow test in
// tests/CMakeLists.txt), never with a silent write below the stack.
//   recurse:  unbounded recursion, touching every page of every frame;
//   bigframe: recursion to within 200 KiB of the end of the stack, then one
//             300 KiB frame whose lowest byte is written first: it lands
//             past the end, beyond a one-page guard.
// A neighbouring thread on the same node, whose stack is right below,
// sits on its own stack meanwhile.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dstd/atomic>
#include <dstd/dstd.hpp>
#include <dstd/thread>

namespace {

constexpr std::uintptr_t stack_bytes = 8u << 20;  // the default DSTD_STACK_KB
std::uintptr_t stack_start = 0;                   // an address near the top of the thread's stack

// 0, but the compiler cannot know it: the whole array must be in the frame
// (clang keeps only the elements a constant index names).
volatile std::size_t lowest = 0;

[[gnu::noinline]] int big_frame(int seed) {
  volatile std::uint8_t frame[300 * 1024];
  const std::size_t low = lowest;
  frame[low] = static_cast<std::uint8_t>(seed);  // the lowest address first
  frame[sizeof frame - 1 - low] = static_cast<std::uint8_t>(seed + 1);
  return frame[low] + frame[sizeof frame - 1 - low];
}

[[gnu::noinline]] int recurse(int depth, bool stop_near_end) {
  volatile std::uint8_t frame[16 * 1024];
  for (std::size_t i = 0; i < sizeof frame; i += 1024) frame[i] = static_cast<std::uint8_t>(depth);
  const auto here = reinterpret_cast<std::uintptr_t>(&frame[0]);
  if (stop_near_end && stack_start - here > stack_bytes - 200 * 1024) return big_frame(depth);
  return recurse(depth + 1, stop_near_end) + frame[0];
}

}  // namespace

int main(int argc, char** argv) {
  const bool bigframe = argc > 1 && std::strcmp(argv[1], "bigframe") == 0;
  const dstd::node_id last = dstd::node_count() - 1;
  dstd::atomic<bool> neighbour_ready{false};
  dstd::atomic<bool> done{false};
  // Spawned first, so its stack is carved first: the neighbour's is the one
  // right below it, where an overflow past a too-small guard would write.
  dstd::thread t = dstd::spawn_on(last, [bigframe, &neighbour_ready] {
    while (!neighbour_ready.load()) dstd::this_thread::yield();
    int top = 0;
    stack_start = reinterpret_cast<std::uintptr_t>(&top);
    std::printf("returned %d\n", recurse(0, bigframe));
  });
  dstd::thread neighbour = dstd::spawn_on(last, [&neighbour_ready, &done] {
    volatile std::uint8_t mine[512 * 1024];  // covers where a 300 KiB jump lands
    for (std::size_t i = 0; i < sizeof mine; ++i) mine[i] = 0xab;
    neighbour_ready = true;
    while (!done.load()) dstd::this_thread::yield();
    for (std::size_t i = 0; i < sizeof mine; ++i) {
      if (mine[i] != 0xab) {
        std::puts("the neighbour's stack was overwritten");
        break;
      }
    }
  });
  t.join();
  done = true;
  neighbour.join();
  std::puts("no overflow reported");
  return 0;
}
