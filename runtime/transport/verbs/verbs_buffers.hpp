// Registered buffers: where the NIC reads what a node sends and writes what
// it receives.
//
// Why staging: the transport contract lets callers pass any memory (a
// fiber's stack, the global heap, which coherence may protect), and the
// NIC can only use registered memory. So every operation that is not
// inline goes through a slot of a registered pool: a write's or a send's
// bytes are copied in when posted, a read's are copied out when it
// completes. One pool of fixed slots (a slot holds a whole message) is
// registered once at start, outside the global heap (mmap), so no
// registration is ever on an operation's path.
#pragma once

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace dstd::rt::verbs {

class buffer_pool {
 public:
  static constexpr std::uint32_t none = ~std::uint32_t{0};

  // `count` slots of `slot_bytes`, registered on `pd` with `access`.
  buffer_pool(ibv_pd* pd, std::uint32_t count, std::size_t slot_bytes, int access,
              const char* what);
  ~buffer_pool();
  buffer_pool(const buffer_pool&) = delete;
  buffer_pool& operator=(const buffer_pool&) = delete;

  std::uint32_t count() const { return count_; }
  std::size_t slot_bytes() const { return slot_bytes_; }
  std::byte* slot(std::uint32_t i) const { return base_ + std::size_t{i} * slot_bytes_; }
  std::uint32_t lkey() const { return region_->lkey; }

  // A free slot, or `none` when every slot is in use (the caller makes
  // progress and tries again). Thread-safe.
  std::uint32_t try_take();
  void give_back(std::uint32_t i);

 private:
  std::byte* base_ = nullptr;
  std::size_t bytes_ = 0;
  std::uint32_t count_;
  std::size_t slot_bytes_;
  ibv_mr* region_ = nullptr;
  std::mutex mutex_;
  std::vector<std::uint32_t> free_;
};

}  // namespace dstd::rt::verbs
