// See verbs_buffers.hpp.
#include "runtime/transport/verbs/verbs_buffers.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

#include "runtime/common/fatal.hpp"

namespace dstd::rt::verbs {

buffer_pool::buffer_pool(ibv_pd* pd, std::uint32_t count, std::size_t slot_bytes, int access,
                         const char* what)
    : count_(count), slot_bytes_(slot_bytes) {
  bytes_ = std::size_t{count} * slot_bytes;
  void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    fatal("verbs: cannot map %zu bytes for %s: %s", bytes_, what, std::strerror(errno));
  }
  base_ = static_cast<std::byte*>(p);
  region_ = ibv_reg_mr(pd, base_, bytes_, access);
  if (region_ == nullptr) {
    fatal("verbs: cannot register %zu bytes for %s: %s (is the locked-memory limit, "
          "ulimit -l, too low?)", bytes_, what, std::strerror(errno));
  }
  free_.reserve(count);
  for (std::uint32_t i = count; i > 0; --i) free_.push_back(i - 1);
}

buffer_pool::~buffer_pool() {
  if (region_ != nullptr) ibv_dereg_mr(region_);
  if (base_ != nullptr) munmap(base_, bytes_);
}

std::uint32_t buffer_pool::try_take() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (free_.empty()) return none;
  const std::uint32_t i = free_.back();
  free_.pop_back();
  return i;
}

void buffer_pool::give_back(std::uint32_t i) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_.push_back(i);
}

}  // namespace dstd::rt::verbs
