// <dstd/channel>: the interface (bounded, unbounded, try and timed
// operations), closing, back-pressure, and values of every kind (long
// strings, vectors, move-only owners) sent and received by threads on
// every node: each value arrives exactly once, whole. Orderings are checked,
// never durations: a timed operation is only asked whether it timed out.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <dstd/channel>
#include <dstd/sync>
#include <dstd/thread>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tests/sync/sync_test_util.hpp"

namespace {

using namespace std::chrono_literals;
using dstd::test::start_on;

// Long enough to live in the heap, and different for every id.
std::string text_of(long id) {
  std::string s = "value " + std::to_string(id) + ":";
  while (s.size() < 200) s += static_cast<char>('a' + (id + static_cast<long>(s.size())) % 26);
  return s;
}

// A move-only owner of a heap long; counts how many it freed (a static:
// one counter for the whole run, homed at node 0).
dstd::atomic<long> owners_freed{0};
struct owner {
  long* value;
  explicit owner(long v) : value(new long(v)) {}
  owner(owner&& o) noexcept : value(o.value) { o.value = nullptr; }
  owner& operator=(owner&&) = delete;
  ~owner() {
    if (value == nullptr) return;
    delete value;
    owners_freed.fetch_add(1);
  }
};

TEST(Channel, UnboundedKeepsOrderAndGrows) {
  dstd::channel<long> ch;
  EXPECT_EQ(ch.capacity(), dstd::channel<long>::unbounded);
  for (long i = 0; i < 1000; ++i) ASSERT_TRUE(ch.try_send(i));
  EXPECT_EQ(ch.size(), 1000u);
  for (long i = 0; i < 1000; ++i) EXPECT_EQ(ch.try_recv(), std::optional<long>(i));
  EXPECT_EQ(ch.try_recv(), std::nullopt);
  EXPECT_FALSE(ch.is_closed());
}

// A short std::string keeps its characters inside itself and points at
// them: a byte copy (into the ring, when the ring grows, out of it) would
// leave it pointing into the old place.
TEST(Channel, ShortStringsThatPointIntoThemselvesArriveWhole) {
  dstd::channel<std::string> ch;
  dstd::thread sender = start_on(1, [&] {
    for (int i = 0; i < 100; ++i) ch.send(std::to_string(i) + "s");  // the ring grows 3 times
    ch.close();
  });
  sender.join();
  int i = 0;
  for (std::string& s : ch) EXPECT_EQ(s, std::to_string(i++) + "s");
  EXPECT_EQ(i, 100);
}

TEST(Channel, BoundedRefusesWhenFullAndTimesOut) {
  dstd::channel<std::string> ch(2);
  EXPECT_EQ(ch.capacity(), 2u);
  ch.send(text_of(1));
  const std::string second = text_of(2);
  ch.send(second);  // a copy
  std::string third = text_of(3);
  EXPECT_FALSE(ch.try_send(std::move(third)));
  EXPECT_EQ(third, text_of(3)) << "a refused value stays with the caller";
  EXPECT_FALSE(ch.send_for(std::move(third), 5ms));
  EXPECT_FALSE(ch.send_until(std::move(third), std::chrono::system_clock::now() + 5ms));
  EXPECT_EQ(third, text_of(3));
  EXPECT_EQ(ch.recv(), text_of(1));
  EXPECT_TRUE(ch.send_for(std::move(third), 60s));
  EXPECT_EQ(ch.recv_for(60s), second);
  EXPECT_EQ(ch.recv_until(std::chrono::steady_clock::now() + 60s), text_of(3));
  EXPECT_EQ(ch.recv_for(5ms), std::nullopt);
  EXPECT_EQ(ch.recv_until(std::chrono::system_clock::now() + 5ms), std::nullopt);
}

TEST(Channel, CapacityZeroIsRefused) {
  EXPECT_THROW(dstd::channel<int>(0), std::invalid_argument);
}

TEST(Channel, TimedReceiveGetsAValueSentFromAnotherNode) {
  dstd::channel<std::string> ch(1);
  dstd::thread sender = start_on(1, [&] { ch.send(text_of(7)); });
  EXPECT_EQ(ch.recv_for(60s), text_of(7));
  sender.join();
}

TEST(Channel, ClosedChannelIsDrainedThenReportsClosed) {
  dstd::channel<std::string> ch;
  for (long i = 0; i < 3; ++i) ch.send(text_of(i));
  ch.close();
  ch.close();  // harmless
  EXPECT_TRUE(ch.is_closed());
  std::string refused = text_of(9);
  EXPECT_THROW(ch.send(std::move(refused)), dstd::channel_closed);
  EXPECT_THROW((void)ch.try_send(std::move(refused)), dstd::channel_closed);
  EXPECT_THROW((void)ch.send_for(std::move(refused), 60s), dstd::channel_closed);
  EXPECT_EQ(refused, text_of(9)) << "a value not sent stays with the caller";
  EXPECT_EQ(ch.recv(), text_of(0));
  EXPECT_EQ(ch.try_recv(), text_of(1));
  EXPECT_EQ(ch.recv_for(60s), text_of(2));
  EXPECT_EQ(ch.recv(), std::nullopt);
  EXPECT_EQ(ch.try_recv(), std::nullopt);
  EXPECT_EQ(ch.recv_for(60s), std::nullopt) << "closed and empty: at once, not at the deadline";
}

TEST(Channel, CloseWakesWaitingReceiversAndSenders) {
  auto empty = std::make_unique<dstd::channel<long>>();
  auto full = std::make_unique<dstd::channel<long>>(1);
  full->send(0);
  dstd::atomic<int> receivers_ended{0};
  dstd::atomic<int> senders_refused{0};
  std::vector<dstd::thread> t;
  for (unsigned n = 0; n < 4; ++n) {
    t.push_back(start_on(n, [&] {
      if (!empty->recv()) receivers_ended.fetch_add(1);
    }));
    t.push_back(start_on(n, [&] {
      try {
        full->send(1);
      } catch (const dstd::channel_closed&) {
        senders_refused.fetch_add(1);
      }
    }));
  }
  dstd::this_thread::sleep_for(50ms);  // most of them waiting by now (not checked)
  empty->close();
  full->close();
  for (auto& th : t) th.join();
  EXPECT_EQ(receivers_ended.load(), 4);
  EXPECT_EQ(senders_refused.load(), 4);
  EXPECT_EQ(full->recv(), std::optional<long>(0));
  EXPECT_EQ(full->recv(), std::nullopt);
}

// A reply channel: the receiver destroys it as soon as its receive has
// returned, while the sender may still be inside send. Memory allocated
// after the delete (likely the same block) must then be left alone: the
// send must be done with the channel before the receive can return. The
// receiver polls with short timed waits, so that it often takes the value
// at the moment the sender unlocks.
TEST(Channel, ReplyChannelMayBeDestroyedOnceItsReceiveReturns) {
  constexpr long rounds = 300;
  constexpr std::size_t block = sizeof(dstd::channel<long>);
  std::vector<dstd::thread> senders;
  std::vector<unsigned char*> reused;
  for (long i = 0; i < rounds; ++i) {
    auto* reply = new dstd::channel<long>(1);
    senders.push_back(start_on(static_cast<unsigned>(i % 2), [reply, i] { reply->send(i); }));
    std::optional<long> v;
    while (!(v = reply->recv_for(1us))) {
    }
    EXPECT_EQ(v, i);
    delete reply;
    reused.push_back(new unsigned char[block]());
  }
  for (auto& t : senders) t.join();
  long touched = 0;
  for (unsigned char* b : reused) {
    touched += std::count_if(b, b + block, [](unsigned char c) { return c != 0; }) > 0;
    delete[] b;
  }
  EXPECT_EQ(touched, 0) << "a send wrote into its channel after the receive returned";
}

TEST(Channel, RangeForReceivesUntilClosed) {
  dstd::channel<long> ch(4);
  dstd::thread sender = start_on(1, [&] {
    for (long i = 1; i <= 100; ++i) ch.send(i);
    ch.close();
  });
  long sum = 0;
  long count = 0;
  for (long& v : ch) {
    sum += v;
    ++count;
  }
  sender.join();
  EXPECT_EQ(count, 100);
  EXPECT_EQ(sum, 5050);
}

// A sender on another node fills a channel of capacity 2 and then waits:
// at no point have more sends finished than receives plus the capacity, and
// after each receive it goes on.
TEST(Channel, SenderWaitsWhileFullAndGoesOnAfterAReceive) {
  constexpr long capacity = 2;
  constexpr long values = 20;
  dstd::channel<long> ch(capacity);
  dstd::atomic<long> sent{0};
  dstd::thread sender = start_on(1, [&] {
    for (long i = 0; i < values; ++i) {
      ch.send(i);
      sent.fetch_add(1);
    }
  });
  while (sent.load() < capacity) dstd::this_thread::yield();
  for (int i = 0; i < 100; ++i) dstd::this_thread::yield();
  EXPECT_EQ(sent.load(), capacity) << "a send finished on a full channel";
  for (long received = 0; received < values; ++received) {
    EXPECT_LE(sent.load(), received + capacity);
    EXPECT_EQ(ch.recv(), std::optional<long>(received));
    if (received + capacity < values) {
      while (sent.load() < received + capacity + 1) dstd::this_thread::yield();  // goes on
    }
  }
  sender.join();
}

// Waits for the producers, closes the channel, waits for the consumers;
// the ids the consumers got, sorted.
template <class T>
std::vector<long> finish(std::vector<dstd::thread>& producers, dstd::channel<T>& ch,
                         std::vector<dstd::thread>& consumers,
                         const std::vector<std::vector<long>>& got) {
  for (auto& t : producers) t.join();
  ch.close();
  for (auto& t : consumers) t.join();
  std::vector<long> all;
  for (const auto& g : got) all.insert(all.end(), g.begin(), g.end());
  std::sort(all.begin(), all.end());
  return all;
}

// One producer and one consumer per node (at least two of each), moving
// `per_producer` values of a kind; each consumer returns what it got.
template <class T, class Make, class Id>
std::vector<long> pass_across_nodes(long per_producer, std::size_t capacity, Make make, Id id_of) {
  const unsigned sides = std::max(2u, dstd::node_count());
  dstd::channel<T> ch(capacity);
  std::vector<std::vector<long>> got(sides);
  std::vector<dstd::thread> producers;
  std::vector<dstd::thread> consumers;
  for (unsigned c = 0; c < sides; ++c) {
    consumers.push_back(start_on(c, [&, c] {
      for (T& v : ch) got[c].push_back(id_of(v));
    }));
  }
  for (unsigned p = 0; p < sides; ++p) {
    producers.push_back(start_on(p + 1, [&, p] {
      for (long i = 0; i < per_producer; ++i) ch.send(make(static_cast<long>(p) * per_producer + i));
    }));
  }
  return finish(producers, ch, consumers, got);
}

std::vector<long> ids_up_to(long n) {
  std::vector<long> ids(static_cast<std::size_t>(n));
  std::iota(ids.begin(), ids.end(), 0L);
  return ids;
}

TEST(Channel, LongStringsAcrossNodesArriveOnceAndWhole) {
  constexpr long per = 300;
  const long total = per * std::max(2u, dstd::node_count());
  const std::vector<long> ids =
      pass_across_nodes<std::string>(per, 8, text_of, [](const std::string& s) {
        const long id = std::stol(s.substr(6));
        return s == text_of(id) ? id : -1;  // -1: damaged
      });
  EXPECT_EQ(ids, ids_up_to(total));
}

TEST(Channel, VectorsAcrossNodesArriveOnceAndWhole) {
  constexpr long per = 200;
  const long total = per * std::max(2u, dstd::node_count());
  const std::vector<long> ids = pass_across_nodes<std::vector<long>>(
      per, dstd::channel<int>::unbounded,
      [](long id) { return std::vector<long>(static_cast<std::size_t>(100 + id % 50), id); },
      [](const std::vector<long>& v) {
        const long id = v.front();
        const bool whole = v.size() == static_cast<std::size_t>(100 + id % 50) &&
                           std::accumulate(v.begin(), v.end(), 0L) == id * static_cast<long>(v.size());
        return whole ? id : -1;
      });
  EXPECT_EQ(ids, ids_up_to(total));
}

TEST(Channel, MoveOnlyOwnersAcrossNodesAreFreedOnce) {
  constexpr long per = 300;
  const long total = per * std::max(2u, dstd::node_count());
  const long freed_before = owners_freed.load();
  const std::vector<long> ids = pass_across_nodes<owner>(
      per, 4, [](long id) { return owner(id); }, [](const owner& o) { return *o.value; });
  EXPECT_EQ(ids, ids_up_to(total));
  EXPECT_EQ(owners_freed.load() - freed_before, total);
}

TEST(Channel, ValuesLeftInAChannelAreDestroyedWithIt) {
  const long freed_before = owners_freed.load();
  {
    dstd::channel<owner> ch;
    for (long i = 0; i < 40; ++i) ch.send(owner(i));  // grows past its first ring
    EXPECT_EQ(*ch.recv()->value, 0);
  }
  EXPECT_EQ(owners_freed.load() - freed_before, 40);
}

// Many producers and consumers on every node, a small bound, and every
// kind of send and receive: each value arrives exactly once, and each
// consumer sees each producer's values in the order they were sent.
TEST(ChannelStress, ManyProducersAndConsumersOnEveryNode) {
  const unsigned producers = 3 * dstd::node_count();
  const unsigned consumers = 3 * dstd::node_count();
  constexpr long per_producer = 400;
  struct item {
    unsigned producer;
    long seq;
  };
  dstd::channel<item> ch(8);
  std::vector<std::vector<long>> ids(consumers);  // producer * per_producer + seq
  std::vector<int> out_of_order(consumers, 0);
  std::vector<dstd::thread> p;
  std::vector<dstd::thread> c;
  for (unsigned k = 0; k < consumers; ++k) {
    c.push_back(start_on(k, [&, k] {
      std::vector<long> last_seq(producers, -1);
      auto got = [&](const item& v) {
        out_of_order[k] += v.seq <= last_seq[v.producer];
        last_seq[v.producer] = v.seq;
        ids[k].push_back(static_cast<long>(v.producer) * per_producer + v.seq);
      };
      std::mt19937 rng(1000 + k);
      for (;;) {
        std::optional<item> v;
        switch (rng() % 3) {
          case 0: v = ch.recv(); break;
          case 1: v = ch.recv_for(1ms); break;
          default: v = ch.try_recv(); break;
        }
        if (v) {
          got(*v);
        } else if (ch.is_closed()) {
          for (item& rest : ch) got(rest);  // what is left, then the end
          return;
        } else {
          dstd::this_thread::yield();
        }
      }
    }));
  }
  for (unsigned j = 0; j < producers; ++j) {
    p.push_back(start_on(j, [&, j] {
      std::mt19937 rng(j);
      for (long s = 0; s < per_producer;) {
        const item v{j, s};
        bool sent = true;
        switch (rng() % 3) {
          case 0: ch.send(v); break;
          case 1: sent = ch.send_for(v, 1ms); break;
          default: sent = ch.try_send(v); break;
        }
        if (sent) ++s;
        else dstd::this_thread::yield();
      }
    }));
  }
  EXPECT_EQ(finish(p, ch, c, ids), ids_up_to(static_cast<long>(producers) * per_producer));
  EXPECT_EQ(std::accumulate(out_of_order.begin(), out_of_order.end(), 0), 0);
}

}  // namespace
