// See lock_table.hpp.
#include "runtime/sync/lock_table.hpp"

#include <cstdint>

#include "runtime/sync/home_lock.hpp"

namespace dstd::rt::lock_table {

namespace {

constexpr std::size_t locks = 1024;

struct table {
  home_lock lock[locks];
};

table* shared = nullptr;  // node 0's table, once booted

// A one-node run without boot records still needs a table.
table& the_table() {
  if (shared == nullptr) shared = new table{};
  return *shared;
}

home_lock& lock_of(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p) >> 4;  // 16-byte granules
  return the_table().lock[(a ^ (a >> 10)) % locks];
}

}  // namespace

void describe(join_record& mine) {
  mine.lock_table = mine.node == 0 ? reinterpret_cast<std::uint64_t>(&the_table()) : 0;
}

void init(const std::vector<join_record>& all) {
  shared = reinterpret_cast<table*>(all[0].lock_table);
}

void lock(const void* p) { lock_of(p).lock(); }

void unlock(const void* p) { lock_of(p).unlock(); }

}  // namespace dstd::rt::lock_table
