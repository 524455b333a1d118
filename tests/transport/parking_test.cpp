// A fiber whose transport operation does not complete inline parks: its
// worker runs other fibers meanwhile (runtime/transport/waiting.hpp). And
// the waits that must not park (coherence's, under sync_mutex) do not.
//
// The program runs its scheduler with one worker, so "another fiber ran
// while the first one waited" is an ordering a user can observe. At one node
// there is nothing remote to wait for; the tests skip.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <dstd/dstd.hpp>
#include <thread>
#include <vector>

#include "runtime/coherence/coherence.hpp"
#include "runtime/heap/partition.hpp"
#include "runtime/sched/scheduler.hpp"
#include "runtime/transport/transport.hpp"
#include "runtime/transport/typed_handler.hpp"

namespace {

namespace rt = dstd::rt;
namespace sched = dstd::rt::sched;
using rt::gaddr;
using rt::message;

rt::transport& net() { return *rt::current_transport(); }

constexpr rt::handler_id h_await_flag = rt::first_user_handler + 0;
constexpr rt::handler_id h_alloc = rt::first_user_handler + 1;

// Static data: homed at node 0, readable by every node with one-sided reads.
std::atomic<std::uint64_t> flag{0};

// On node 1: waits (bounded, so that a failure ends instead of hanging) for
// node 0's flag; replies 1 if it was set, 0 if it never was.
void on_await_flag(message& m) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  std::uint64_t seen = 0;
  while (seen == 0 && std::chrono::steady_clock::now() < until) {
    net().read(&seen, reinterpret_cast<gaddr>(&flag), sizeof seen);
    if (seen == 0) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  m.reply(&seen, sizeof seen);
}
const rt::handler_registration await_registration{h_await_flag, &on_await_flag};

void on_alloc(message& m) {
  void* p = rt::partition_allocate(m.payload_as<std::uint64_t>(), 4096);
  std::memset(p, 0, m.payload_as<std::uint64_t>());
  m.reply(&p, sizeof p);
}
const rt::handler_registration alloc_registration{h_alloc, &on_alloc};

// Waits (bounded) until `count` reaches `want`; the fibers signal through it.
bool wait_for(const std::atomic<int>& count, int want) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (count.load() < want) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

class Parking : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { sched::start(1); }
  void SetUp() override {
    if (dstd::node_count() < 2) GTEST_SKIP() << "nothing remote to wait for at one node";
  }
};

struct ordering {
  std::atomic<int> next{0};
  int caller_returned = -1;  // order in which things happened
  int other_ran = -1;
  std::uint64_t reply = 0;
  std::atomic<int> finished{0};
};

void other_fiber(void* arg) {
  auto* o = static_cast<ordering*>(arg);
  o->other_ran = o->next++;
  flag.store(1);
  o->finished++;
}

void calling_fiber(void* arg) {
  auto* o = static_cast<ordering*>(arg);
  sched::spawn(other_fiber, o);  // same (only) worker: runs only if we park
  const std::vector<std::byte> r = net().call(1, h_await_flag, nullptr, 0);
  std::memcpy(&o->reply, r.data(), sizeof o->reply);
  o->caller_returned = o->next++;
  o->finished++;
}

TEST_F(Parking, AFiberWaitingForAReplyLetsItsWorkerRunOthers) {
  ordering o;
  sched::spawn(calling_fiber, &o);
  ASSERT_TRUE(wait_for(o.finished, 2)) << "the fibers did not finish";
  EXPECT_EQ(o.reply, 1u) << "node 1 never saw the flag: the other fiber did not run while the "
                            "caller waited";
  EXPECT_LT(o.other_ran, o.caller_returned);
}

// Many fibers of one worker write remote memory and release at once: a
// release holds sync_mutex across its wait for the diff acks, so a fiber
// that parked there would leave the next one blocking the worker on the
// mutex, forever.
struct releasers {
  std::uint64_t* remote = nullptr;  // one word per fiber, homed at node 1
  std::atomic<int> next_id{0};
  std::atomic<int> finished{0};
};
constexpr int fibers = 8;
constexpr std::uint64_t rounds = 50;

void releasing_fiber(void* arg) {
  auto* r = static_cast<releasers*>(arg);
  const int me = r->next_id++;
  for (std::uint64_t i = 1; i <= rounds; ++i) {
    r->remote[me * 512] = i;  // a page of its own, so every round faults anew
    rt::coherence::release();
    rt::coherence::acquire();
  }
  r->finished++;
}

TEST_F(Parking, ConcurrentReleasesOnOneWorkerDoNotDeadlock) {
  const std::uint64_t bytes = fibers * 4096;
  const std::vector<std::byte> reply = net().call(1, h_alloc, &bytes, sizeof bytes);
  releasers r;
  std::memcpy(&r.remote, reply.data(), sizeof r.remote);
  for (int i = 0; i < fibers; ++i) sched::spawn(releasing_fiber, &r);
  ASSERT_TRUE(wait_for(r.finished, fibers)) << "the releasing fibers deadlocked";
  for (int i = 0; i < fibers; ++i) {
    std::uint64_t at_home = 0;
    net().read(&at_home, reinterpret_cast<gaddr>(r.remote + i * 512), sizeof at_home);
    EXPECT_EQ(at_home, rounds) << "fiber " << i;
  }
}

}  // namespace
