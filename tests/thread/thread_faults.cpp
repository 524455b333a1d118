// A program that misuses dstd::thread in the way named by argv[1], for
// thread_faults_test.sh: each must end the whole run with a clear message.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <dstd/dstd.hpp>
#include <dstd/thread>
#include <stdexcept>

#include "runtime/sched/remote_wake.hpp"

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (std::strcmp(mode, "throw-on-last-node") == 0) {
    dstd::spawn_on(dstd::node_count() - 1, [] {
      throw std::runtime_error("the answer was not 42");
    }).join();
  } else if (std::strcmp(mode, "drop-joinable") == 0) {
    dstd::thread t([] {});
    // ~thread of a joinable thread: std::terminate, as with std::thread.
  } else if (std::strcmp(mode, "spawn-on-missing-node") == 0) {
    // The std::system_error escapes main (on its fiber): std::terminate
    // must report it, as it would without dstd.
    dstd::spawn_on(dstd::node_count(), [] {}).join();
  } else if (std::strcmp(mode, "detached-still-running") == 0) {
    // As with std: the program ends when main returns, whatever its
    // detached threads (here, on the last node) are doing.
    dstd::spawn_on(dstd::node_count() - 1, [] {
      dstd::this_thread::sleep_for(std::chrono::hours(1));
    }).detach();
  } else if (std::strcmp(mode, "wake-unknown-waiter") == 0) {
    // A wake naming a waiter node 0 never had (a runtime bug, or a corrupt
    // message) must not unpark something at random.
    dstd::spawn_on(dstd::node_count() - 1, [] {
      dstd::rt::sched::wake({0, 0xfffffff});
    }).join();
    dstd::this_thread::sleep_for(std::chrono::seconds(20));
  } else if (std::strcmp(mode, "ok") == 0) {
    dstd::thread t([] {});
    t.join();
  } else {
    std::fprintf(stderr, "usage: thread_faults throw-on-last-node|drop-joinable|"
                         "spawn-on-missing-node|detached-still-running|wake-unknown-waiter|ok\n");
    return 2;
  }
  std::puts("main returned");
  return 0;
}
