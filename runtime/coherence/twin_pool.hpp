// Twins: the copy of a cache frame taken when it is first written after a
// sync, against which release computes the diff. The fault handler takes
// them, so the pool is a fixed anonymous region with a free list, no malloc.
#pragma once

#include <cstdint>

#include "runtime/coherence/spin_lock.hpp"

namespace dstd::rt::coherence {

class twin_pool {
 public:
  void init(std::uint32_t capacity);
  // A free slot (1-based), or a fatal error when all are in use.
  std::uint32_t take() noexcept;
  void give_back(std::uint32_t slot) noexcept;
  unsigned char* bytes(std::uint32_t slot) const noexcept;

 private:
  unsigned char* area_ = nullptr;
  std::uint32_t limit_ = 0;
  std::uint32_t next_fresh_ = 1;
  std::uint32_t free_head_ = 0;  // free slots form a list through their first bytes
  spin_lock lock_;
};

}  // namespace dstd::rt::coherence
