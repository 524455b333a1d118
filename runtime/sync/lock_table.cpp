// See lock_table.hpp.
#include "runtime/sync/lock_table.hpp"

#include <cstdint>

#include "runtime/sched/scheduler.hpp"
#include "runtime/sync/home_word.hpp"

namespace dstd::rt::lock_table {

namespace {

constexpr std::size_t locks = 1024;

struct table {
  std::uint64_t word[locks];  // home words: 0 free, 1 held
};

table* shared = nullptr;  // node 0's table, once booted

// A one-node run without boot records still needs a table.
table& the_table() {
  if (shared == nullptr) shared = new table{};
  return *shared;
}

std::uint64_t* lock_of(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p) >> 4;  // 16-byte granules
  return &the_table().word[(a ^ (a >> 10)) % locks];
}

}  // namespace

void describe(join_record& mine) {
  mine.lock_table = mine.node == 0 ? reinterpret_cast<std::uint64_t>(&the_table()) : 0;
}

void init(const std::vector<join_record>& all) {
  shared = reinterpret_cast<table*>(all[0].lock_table);
}

void lock(const void* p) {
  std::uint64_t* w = lock_of(p);
  while (at_home::exchange(w, 1) != 0) sched::yield();
}

void unlock(const void* p) { at_home::store(lock_of(p), 0); }

}  // namespace dstd::rt::lock_table
