// See route.hpp.
#include "dstd/interpose/route.hpp"

#include <cstdint>

namespace dstd::interpose {

bool cluster_serves(const void* p, const void* return_address) noexcept {
  return !runtime_caller(return_address) && rt::locate(p).global;
}

}  // namespace dstd::interpose
