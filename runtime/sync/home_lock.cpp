// See home_lock.hpp.
#include "runtime/sync/home_lock.hpp"

#include "runtime/sync/home_mutex.hpp"

namespace dstd::rt {

void home_lock::lock() {
  if (word_.compare_swap(home_mutex::free_word, home_mutex::held) == home_mutex::free_word) return;
  home_mutex::lock(word_.bits(), 0, nullptr);
}

void home_lock::unlock() {
  if (word_.compare_swap(home_mutex::held, home_mutex::free_word) == home_mutex::held) return;
  home_mutex::unlock(word_.bits(), 0);
}

}  // namespace dstd::rt
