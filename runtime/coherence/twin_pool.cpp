// See twin_pool.hpp.
#include "runtime/coherence/twin_pool.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "runtime/coherence/spin_lock.hpp"
#include "runtime/common/assert.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/layout.hpp"

namespace dstd::rt::coherence {

void twin_pool::init(std::uint32_t capacity) {
  void* p = mmap(nullptr, std::uint64_t(capacity + 1) * layout::page_bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) fatal("cannot reserve the twin pool: %s", std::strerror(errno));
  area_ = static_cast<unsigned char*>(p);
  limit_ = capacity;
}

unsigned char* twin_pool::bytes(std::uint32_t slot) const noexcept {
  return area_ + std::uint64_t(slot) * layout::page_bytes;
}

std::uint32_t twin_pool::take() noexcept {
  std::lock_guard<spin_lock> guard(lock_);
  if (free_head_ != 0) {
    const std::uint32_t slot = free_head_;
    std::memcpy(&free_head_, bytes(slot), sizeof free_head_);
    DSTD_ASSERT(free_head_ < next_fresh_, "twin slot %u links to slot %u, never handed out: "
                "a twin was written after it was given back", slot, free_head_);
    return slot;
  }
  if (next_fresh_ > limit_) {
    fatal("more than %u pages written (or made writable ahead of writes, or kept writable by the "
          "last flushes) since the last release; release more often",
          limit_);
  }
  return next_fresh_++;
}

void twin_pool::give_back(std::uint32_t slot) noexcept {
  std::lock_guard<spin_lock> guard(lock_);
  DSTD_ASSERT(slot != 0 && slot < next_fresh_, "twin slot %u given back but never taken", slot);
  DSTD_ASSERT(slot != free_head_, "twin slot %u given back twice", slot);
  std::memcpy(bytes(slot), &free_head_, sizeof free_head_);
  free_head_ = slot;
}

}  // namespace dstd::rt::coherence
