// A program's own SIGSEGV handler and dstd's page faults live side by side
// (issue 11, loose ends). dstd's handler stays installed; a fault that is
// not on a cache frame goes to the program's handler, whether the program
// installed it in a static constructor or in main, before or after dstd's
// handler. After such a fault, memory is still coherent across nodes.
// Signal dispositions are per node (a node is a process): the executable's
// static constructors and main run on node 0 only, so a thread on another
// node installs the handler it needs there itself.
#include <gtest/gtest.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

#include <cstring>
#include <dstd/dstd.hpp>
#include <dstd/thread>
#include <vector>

namespace {

// One guard page per thread that faults on purpose (never a dstd page).
char* make_guard_page() {
  void* p = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : static_cast<char*>(p);
}

// What the handlers saw, a slot per node. These statics are shared by all
// nodes (homed at node 0): a handler on another node touching them faults
// on a cache frame inside the handler, which dstd must resolve too.
thread_local sigjmp_buf* jump_target = nullptr;
int early_handler_calls[64];
int late_handler_calls[64];
void* last_fault_address[64];

void early_handler(int, siginfo_t* info, void*) {
  ++early_handler_calls[dstd::this_node()];
  last_fault_address[dstd::this_node()] = info->si_addr;
  siglongjmp(*jump_target, 1);
}

void late_handler(int) {  // a plain (not SA_SIGINFO) handler
  ++late_handler_calls[dstd::this_node()];
  siglongjmp(*jump_target, 1);
}

// Stores into *p; true when that faulted and the program's handler jumped
// back here.
bool store_faults(volatile char* p) {
  sigjmp_buf env;
  jump_target = &env;
  if (sigsetjmp(env, 1) == 0) {
    *p = 1;
    jump_target = nullptr;
    return false;
  }
  jump_target = nullptr;
  return true;
}

void install_early_handler() {
  struct sigaction sa {};
  sa.sa_sigaction = early_handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, nullptr);
}

// Installed by a static constructor (on node 0, before main).
struct early_installer {
  early_installer() { install_early_handler(); }
} installs_early_handler;

// Node 0 writes a vector, a thread on the last node checks it and writes
// back; then that thread fills a vector in its own node's memory and node 0
// reads it (faulting on the other node's pages): coherent memory both ways.
void expect_coherent_round_trip(int salt) {
  const dstd::node_id last = dstd::node_count() - 1;
  std::vector<int> values(20000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int>(i) * salt;
  long sum_seen = -1;
  std::vector<int>* theirs = nullptr;
  dstd::spawn_on(last, [&] {
    long s = 0;
    for (int v : values) s += v;
    sum_seen = s;
    for (int& v : values) v += 1;
    theirs = new std::vector<int>(values.size(), salt);  // homed on `last`
  }).join();
  long expected = 0;
  for (std::size_t i = 0; i < values.size(); ++i) expected += static_cast<long>(i) * salt;
  EXPECT_EQ(sum_seen, expected);
  for (std::size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(values[i], static_cast<int>(i) * salt + 1) << "index " << i;
  }
  ASSERT_NE(theirs, nullptr);
  EXPECT_EQ(dstd::home_of(theirs->data()), last);
  long their_sum = 0;
  for (int v : *theirs) their_sum += v;
  EXPECT_EQ(their_sum, long(salt) * static_cast<long>(values.size()));
  delete theirs;
}

TEST(ForeignFault, HandlerInstalledBeforeBootGetsTheProgramsOwnFaults) {
  const dstd::node_id last = dstd::node_count() - 1;
  char* guard = make_guard_page();
  ASSERT_NE(guard, nullptr);
  expect_coherent_round_trip(3);  // dstd's faults first: not the program's
  EXPECT_EQ(early_handler_calls[0], 0);
  EXPECT_TRUE(store_faults(guard));
  EXPECT_EQ(early_handler_calls[0], 1);
  EXPECT_EQ(last_fault_address[0], guard);
  expect_coherent_round_trip(5);  // coherence still on
  EXPECT_EQ(early_handler_calls[0], 1);
  // The same on another node's thread.
  bool faulted = false;
  char* theirs = nullptr;
  dstd::spawn_on(last, [&] {
    if (dstd::this_node() != 0) install_early_handler();  // per node
    theirs = make_guard_page();
    faulted = theirs != nullptr && store_faults(theirs);
  }).join();
  EXPECT_TRUE(faulted);
  EXPECT_EQ(early_handler_calls[last], last == 0 ? 2 : 1);
  EXPECT_EQ(last_fault_address[last], theirs);
  expect_coherent_round_trip(7);
  munmap(guard, 4096);
}

TEST(ForeignFault, HandlerInstalledAfterBootGetsTheProgramsOwnFaults) {
  struct sigaction sa {}, old {};
  sa.sa_handler = late_handler;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(SIGSEGV, &sa, &old), 0);
  // What the program installed before is what it gets back.
  EXPECT_EQ(old.sa_sigaction, &early_handler);
  struct sigaction now {};
  ASSERT_EQ(sigaction(SIGSEGV, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, &late_handler);

  expect_coherent_round_trip(11);
  EXPECT_EQ(late_handler_calls[0], 0);
  char* guard = make_guard_page();
  ASSERT_NE(guard, nullptr);
  EXPECT_TRUE(store_faults(guard));
  EXPECT_EQ(late_handler_calls[0], 1);
  expect_coherent_round_trip(13);
  // signal() replaces it too.
  EXPECT_EQ(signal(SIGSEGV, SIG_DFL), &late_handler);
  ASSERT_EQ(sigaction(SIGSEGV, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
  expect_coherent_round_trip(17);
  munmap(guard, 4096);
}

}  // namespace
