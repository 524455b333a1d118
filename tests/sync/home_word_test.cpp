// Home words (runtime/sync/home_word.hpp): a plain read or write of one does
// not compile, and its operations are exact from every node, whatever the
// word's home and whatever it holds.
#include <gtest/gtest.h>

#include <concepts>
#include <cstdint>
#include <dstd/thread>
#include <type_traits>
#include <vector>

#include "runtime/sync/home_word.hpp"
#include "tests/sync/sync_test_util.hpp"

namespace {

using dstd::rt::home_ref;
using dstd::rt::home_word;
using dstd::test::make_on;
using word = home_word<std::uint64_t>;

// The plain accesses the type exists to refuse.
template <class W>
concept plain_write = requires(W& w) { w = 1; };
template <class W>
concept plain_read = requires(W& w) { std::uint64_t{w}; } || std::convertible_to<W&, std::uint64_t>;
template <class W>
concept plain_arithmetic = requires(W& w) { ++w; } || requires(W& w) { w += 1; };
template <class W>
concept copyable_value = std::is_copy_constructible_v<W> || std::is_copy_assignable_v<W>;

static_assert(!plain_write<word> && !plain_read<word> && !plain_arithmetic<word>);
static_assert(!copyable_value<word>);
static_assert(!plain_write<home_ref<std::uint64_t>> && !plain_read<home_ref<std::uint64_t>>);
static_assert(!plain_arithmetic<home_ref<std::uint64_t>>);
// The members are the way in.
static_assert(requires(word& w) {
  w.store(1);
  { w.load() } -> std::same_as<std::uint64_t>;
});

enum class phase : std::uint8_t { idle, running, done };
struct pair {
  std::uint32_t a;
  std::uint16_t b;
};

// Runs f(thread index) on `per_node` threads on every node; joins.
template <class F>
void on_every_node(unsigned per_node, F f) {
  std::vector<dstd::thread> t;
  for (unsigned n = 0; n < dstd::node_count(); ++n) {
    for (unsigned k = 0; k < per_node; ++k) {
      t.push_back(dstd::spawn_on(n, [&f, i = n * per_node + k] { f(i); }));
    }
  }
  for (auto& th : t) th.join();
}

unsigned last_node() { return dstd::node_count() - 1; }

TEST(HomeWord, FetchAddFromEveryNodeIsExact) {
  auto w = make_on<word>(last_node(), std::uint64_t{5});
  constexpr int adds = 200;
  on_every_node(2, [&](unsigned) {
    for (int i = 0; i < adds; ++i) w->fetch_add(1);
  });
  EXPECT_EQ(w->load(), 5 + std::uint64_t{adds} * 2 * dstd::node_count());
}

// A token passed round all threads by load and store alone: a store that
// were lost or torn would stall the ring or skip a turn.
TEST(HomeWord, StoresPassATokenRoundEveryNode) {
  auto turn = make_on<word>(last_node());
  constexpr unsigned per_node = 2;
  constexpr std::uint64_t rounds = 30;
  const unsigned threads = per_node * dstd::node_count();
  auto turns_taken = make_on<word>(0);
  on_every_node(per_node, [&](unsigned me) {
    for (std::uint64_t r = 0; r < rounds; ++r) {
      std::uint64_t t;
      while ((t = turn->load()) % threads != me) dstd::this_thread::yield();
      turns_taken->fetch_add(1);
      turn->store(t + 1);
    }
  });
  EXPECT_EQ(turn->load(), rounds * threads);
  EXPECT_EQ(turns_taken->load(), rounds * threads);
}

TEST(HomeWord, EnumsAndSmallStructsRoundTripAtARemoteHome) {
  auto p = make_on<home_word<phase>>(last_node(), phase::idle);
  auto q = make_on<home_word<pair>>(last_node(), pair{7, 9});
  dstd::spawn_on(0, [&] {
    EXPECT_EQ(p->compare_swap(phase::idle, phase::running), phase::idle);
    EXPECT_EQ(p->exchange(phase::done), phase::running);
    const pair old = q->exchange(pair{0xfffffffe, 0xffff});
    EXPECT_EQ(old.a, 7u);
    EXPECT_EQ(old.b, 9u);
  }).join();
  EXPECT_EQ(p->load(), phase::done);
  EXPECT_EQ(q->load().a, 0xfffffffeu);
  EXPECT_EQ(q->load().b, 0xffffu);
}

TEST(HomeWord, SignedValuesWrapLikeIntegers) {
  auto w = make_on<home_word<std::int32_t>>(last_node(), -3);
  dstd::spawn_on(0, [&] { EXPECT_EQ(w->fetch_add(-4), -3); }).join();
  EXPECT_EQ(w->load(), -7);
}

TEST(HomeRef, NamesAWordDeclaredAsAPlainInteger) {
  auto storage = make_on<std::uint64_t>(last_node(), std::uint64_t{0});
  on_every_node(2, [&](unsigned) {
    const home_ref<std::uint64_t> w(*storage);
    for (int i = 0; i < 50; ++i) w.fetch_add(3);
  });
  EXPECT_EQ(home_ref<std::uint64_t>(*storage).load(), 3u * 50 * 2 * dstd::node_count());
}

}  // namespace
