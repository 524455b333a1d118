// Internal to <dstd/memory>: the control block of shared_ptr and weak_ptr,
// with its counts kept at the block's home.
//
// The counts are dstd::atomic words, so every change is one operation at the
// home of the block (a CPU atomic there, a one-sided remote atomic from any
// other node) and all nodes see one order of changes: the object is
// destroyed exactly once, by whichever node drops the last owner. Taking a
// reference is relaxed (no coherence work, as in std); every drop releases
// (this node's writes reach their homes first), and the drop that reaches
// zero then acquires, so the destructor sees every write made before any
// drop (docs/DESIGN.md §5.4).
#pragma once

#include <cstddef>
#include <dstd/atomic>
#include <dstd/bits/block_memory.hpp>
#include <new>
#include <type_traits>
#include <utility>

namespace dstd::detail {

// A distinct address per type: get_deleter's type test, without RTTI.
template <class T>
inline constexpr char type_tag = 0;

class shared_count {
 public:
  shared_count() noexcept = default;
  shared_count(const shared_count&) = delete;
  shared_count& operator=(const shared_count&) = delete;

  void add_owner() noexcept { owners_.fetch_add(1, memory_order_relaxed); }

  // weak_ptr::lock: one more owner unless there are none left (then the
  // object is gone or going, and stays so). Relaxed, as a copy is: whoever
  // handed this thread the weak_ptr also handed it the object's state.
  bool add_owner_if_alive() noexcept {
    long n = owners_.load(memory_order_relaxed);
    while (n != 0) {
      if (owners_.compare_exchange_weak(n, n + 1, memory_order_relaxed, memory_order_relaxed)) {
        return true;
      }
    }
    return false;
  }

  void drop_owner() noexcept {
    if (owners_.fetch_sub(1, memory_order_release) == 1) {
      dstd::atomic_thread_fence(memory_order_acquire);
      dispose();
      drop_watcher();
    }
  }

  void add_watcher() noexcept { watchers_.fetch_add(1, memory_order_relaxed); }

  void drop_watcher() noexcept {
    if (watchers_.fetch_sub(1, memory_order_release) == 1) {
      dstd::atomic_thread_fence(memory_order_acquire);
      destroy();
    }
  }

  long owners() const noexcept { return owners_.load(memory_order_relaxed); }

  // The deleter if its type has this tag, else null.
  virtual void* deleter(const void* /*tag*/) noexcept { return nullptr; }

 protected:
  virtual ~shared_count() = default;

 private:
  virtual void dispose() noexcept = 0;  // destroys the object
  virtual void destroy() noexcept = 0;  // frees the block (free_block)

  atomic<long> owners_{1};
  // weak_ptrs, plus one for all the owners together while there are any.
  atomic<long> watchers_{1};
};

// A block for an object allocated elsewhere, deleted by d(p); the block
// itself comes from (a copy of) allocator A.
template <class P, class D, class A>
class shared_count_ptr final : public shared_count {
 public:
  static constexpr std::size_t alignment() noexcept { return alignof(shared_count_ptr); }

  shared_count_ptr(const A& a, P p, D d) noexcept : p_(p), d_(std::move(d)), alloc_(a) {}
  void* deleter(const void* tag) noexcept override {
    return tag == &type_tag<D> ? __builtin_addressof(d_) : nullptr;
  }
  const A& allocator() const noexcept { return alloc_; }

 private:
  void dispose() noexcept override { d_(p_); }
  void destroy() noexcept override { free_block(this, sizeof(shared_count_ptr)); }

  P p_;
  [[no_unique_address]] D d_;
  [[no_unique_address]] A alloc_;
};

}  // namespace dstd::detail
