// The runtime half of include/dstd/bits/ownership_hint.hpp.
#include <dstd/bits/ownership_hint.hpp>

#include "runtime/coherence/coherence.hpp"

namespace dstd::detail {

void fetch_owned_bytes(const void* p, std::size_t len) noexcept {
  rt::coherence::prefetch(p, len);
}

}  // namespace dstd::detail
