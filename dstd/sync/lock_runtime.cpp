// The contended paths of dstd's locks (include/dstd/bits/sync_core.hpp,
// lock_word.hpp): the header-only mutexes, and the gates of shared mutexes
// and semaphores, call these when their one compare-and-swap did not do,
// and the runtime serves them at the word's home.
#include <dstd/bits/sync_core.hpp>

#include "runtime/sync/home_mutex.hpp"

namespace dstd::detail {

bool lock_contended(std::uint64_t* word, unsigned state_shift,
                    const std::chrono::steady_clock::time_point* deadline) {
  return rt::home_mutex::lock(word, state_shift, deadline);
}

void unlock_contended(std::uint64_t* word, unsigned state_shift) {
  rt::home_mutex::unlock(word, state_shift);
}

}  // namespace dstd::detail
