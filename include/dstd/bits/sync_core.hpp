// Internal to <dstd/atomic> and <dstd/sync>: the runtime entry points the
// header-only types call. Not for direct use.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <dstd/bits/std_parts.hpp>
#include <type_traits>

namespace dstd::detail {

// Coherence (docs/DESIGN.md §4): make this node's writes visible at their
// homes / see writes released by others. Cheap when there is nothing to do.
void sync_release() noexcept;
void sync_acquire() noexcept;

// Release before an operation with this order, acquire after it.
inline bool releases(std::memory_order o) noexcept {
  return o == std::memory_order_release || o == std::memory_order_acq_rel ||
         o == std::memory_order_seq_cst;
}
inline bool acquires(std::memory_order o) noexcept {
  return o == std::memory_order_acquire || o == std::memory_order_consume ||
         o == std::memory_order_acq_rel || o == std::memory_order_seq_cst;
}

// True when *p is homed on this node: its atomics are plain CPU atomics.
bool is_home(const volatile void* p) noexcept;

// Operations on a 1-, 2-, 4- or 8-byte object homed on another node; values
// travel as the low `size` bytes of a 64-bit integer.
std::uint64_t remote_load(const volatile void* p, unsigned size);
std::uint64_t remote_exchange(volatile void* p, unsigned size, std::uint64_t v);
bool remote_compare_exchange(volatile void* p, unsigned size, std::uint64_t& expected,
                             std::uint64_t desired);
std::uint64_t remote_fetch_add(volatile void* p, unsigned size, std::uint64_t v);

// Objects of any other size: a lock per address (at the object's home)
// guards a byte copy.
void locked_load(const volatile void* p, std::size_t size, void* out);
void locked_store(volatile void* p, std::size_t size, const void* in);
void locked_exchange(volatile void* p, std::size_t size, const void* in, void* out);
bool locked_compare_exchange(volatile void* p, std::size_t size, void* expected,
                             const void* desired);

// Blocking on an object's value (the 8-byte word that contains it), for
// atomic wait/notify and every blocking sync type.
void wait_while_equal(const volatile void* p, unsigned size, std::uint64_t old);
bool wait_while_equal_until(const volatile void* p, unsigned size, std::uint64_t old,
                            std::chrono::steady_clock::time_point deadline);
void wake_waiters(const volatile void* p, bool all);

// Sleeps while the 8-byte word at p is `seen` (it may return sooner:
// callers re-check); with a deadline (when not null), false once it has
// passed, without sleeping.
inline bool wait_for_change(const volatile void* p, std::uint64_t seen,
                            const std::chrono::steady_clock::time_point* deadline) {
  if (deadline == nullptr) {
    wait_while_equal(p, 8, seen);
    return true;
  }
  if (std::chrono::steady_clock::now() >= *deadline) return false;
  wait_while_equal_until(p, 8, seen, *deadline);
  return true;
}

// A lock (lock_word.hpp: its state is the two bits at `state_shift` of
// `word`) whose fast compare-and-swap failed: take it (false when
// `deadline`, if not null, passed first), or give it. The line of waiters
// is kept at the word's home (runtime/sync/home_mutex.hpp).
bool lock_contended(std::uint64_t* word, unsigned state_shift,
                    const std::chrono::steady_clock::time_point* deadline);
void unlock_contended(std::uint64_t* word, unsigned state_shift);

// A deadline from any clock, as the scheduler's clock.
template <class Clock, class Duration>
std::chrono::steady_clock::time_point steady_deadline(
    const std::chrono::time_point<Clock, Duration>& t) {
  if constexpr (std::is_same_v<Clock, std::chrono::steady_clock>) {
    return std::chrono::time_point_cast<std::chrono::steady_clock::duration>(t);
  } else {
    return std::chrono::steady_clock::now() +
           std::chrono::ceil<std::chrono::steady_clock::duration>(t - Clock::now());
  }
}

}  // namespace dstd::detail
