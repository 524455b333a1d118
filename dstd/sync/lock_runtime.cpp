// The contended paths of dstd's lock words (include/dstd/bits/sync_core.hpp):
// the header-only mutexes call these when their one compare-and-swap did
// not do, and the runtime serves them at the word's home.
#include <dstd/bits/sync_core.hpp>

#include "runtime/sync/home_mutex.hpp"

namespace dstd::detail {

bool lock_contended(std::uint64_t* word, const std::chrono::steady_clock::time_point* deadline) {
  return rt::home_mutex::lock(word, deadline);
}

void unlock_contended(std::uint64_t* word) { rt::home_mutex::unlock(word); }

}  // namespace dstd::detail
