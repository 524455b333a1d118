// trace_program: a little of everything a trace shows, on every node, for
// the tests of dstdrun --trace (dstdrun_trace_test.cpp).
//
//   trace_program count ROUNDS  a thread on each node adds 1 to one shared
//                               counter ROUNDS times under one dstd::mutex,
//                               and writes its node into a shared array
//                               (faults, releases, acquires, lock waits,
//                               messages); the threads start together and
//                               the first to take the lock holds it 20 ms,
//                               so that the others wait for it and then
//                               contend; main prints "counter N"
//   trace_program die           as count 50, but node 1's thread then
//                               calls abort()
//   trace_program kill          as count 50, but node 1's thread then
//                               kills its node (SIGKILL)
//   trace_program hang          as count 50, then main sleeps for an hour
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <dstd/dstd.hpp>
#include <dstd/sync>
#include <dstd/thread>
#include <vector>

namespace {

struct shared_state {
  dstd::atomic<unsigned> running{0};
  dstd::mutex lock;
  long counter = 0;
  unsigned last_writer[4096] = {};
};

enum class ending { normal, abort, kill };

int count(unsigned rounds, ending how) {
  auto* s = new shared_state;
  std::vector<dstd::thread> threads;
  for (unsigned k = 0; k < dstd::node_count(); ++k) {
    threads.push_back(dstd::spawn_on(k, [s, rounds, how] {
      s->running.fetch_add(1);
      while (s->running.load() < dstd::node_count()) dstd::this_thread::yield();
      for (unsigned r = 0; r < rounds; ++r) {
        std::lock_guard<dstd::mutex> g(s->lock);
        if (s->counter == 0) dstd::this_thread::sleep_for(std::chrono::milliseconds(20));
        ++s->counter;
        s->last_writer[(r * 97) % 4096] = dstd::this_node();
      }
      if (dstd::this_node() == 1 && how == ending::abort) std::abort();
      if (dstd::this_node() == 1 && how == ending::kill) raise(SIGKILL);
    }));
  }
  for (auto& t : threads) t.join();
  std::printf("counter %ld\n", s->counter);
  delete s;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "count") == 0) return count(static_cast<unsigned>(std::atoi(argv[2])), ending::normal);
  if (argc == 2 && std::strcmp(argv[1], "die") == 0) return count(50, ending::abort);
  if (argc == 2 && std::strcmp(argv[1], "kill") == 0) return count(50, ending::kill);
  if (argc == 2 && std::strcmp(argv[1], "hang") == 0) {
    count(50, ending::normal);
    std::fflush(stdout);
    sleep(3600);
    return 0;
  }
  std::fprintf(stderr, "usage: trace_program count ROUNDS | die | kill | hang\n");
  return 2;
}
