// The runtime side of <dstd/atomic> (include/dstd/bits/sync_core.hpp):
// atomics on objects homed elsewhere, locked copies of large objects, and
// blocking on an object's value.
//
// A remote object of fewer than 8 bytes is updated with a compare-and-swap
// of the aligned 8-byte word around it, changing only its own bytes; the
// home's CPU atomics on the object itself are atomic with respect to that.
#include <cstring>
#include <dstd/bits/sync_core.hpp>
#include <thread>

#include "runtime/coherence/coherence.hpp"
#include "runtime/heap/address_space.hpp"
#include "runtime/sched/scheduler.hpp"
#include "runtime/sync/home_futex.hpp"
#include "runtime/sync/home_word.hpp"
#include "runtime/sync/lock_table.hpp"
#include "runtime/transport/transport.hpp"

namespace dstd::detail {

namespace hw = rt::at_home;
// The remote_* operations are called only for objects homed elsewhere
// (sync_core.hpp): is_home() has located them, so they do not locate again.
constexpr hw::known elsewhere = hw::known::elsewhere;

namespace {

// The aligned word holding [p, p + size) and where the object sits in it.
struct lane {
  std::uint64_t* word;
  unsigned shift;  // bits
  std::uint64_t mask;
};

lane lane_of(const volatile void* p, unsigned size) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  lane l{};
  l.word = reinterpret_cast<std::uint64_t*>(a & ~std::uintptr_t{7});
  l.shift = static_cast<unsigned>(a & 7) * 8;
  l.mask = size == 8 ? ~std::uint64_t{0} : ((std::uint64_t{1} << (size * 8)) - 1) << l.shift;
  return l;
}

// An 8-byte object: the word itself.
std::uint64_t* whole_word(volatile void* p) {
  return reinterpret_cast<std::uint64_t*>(const_cast<void*>(p));
}

std::uint64_t extract(const lane& l, std::uint64_t word) { return (word & l.mask) >> l.shift; }

std::uint64_t insert(const lane& l, std::uint64_t word, std::uint64_t v) {
  return (word & ~l.mask) | ((v << l.shift) & l.mask);
}

// Replaces the object's bits with f(old bits) at its home; returns the old.
template <class F>
std::uint64_t remote_update(volatile void* p, unsigned size, F f) {
  const lane l = lane_of(p, size);
  std::uint64_t word = hw::load(l.word, elsewhere);
  for (;;) {
    const std::uint64_t old = extract(l, word);
    const std::uint64_t seen =
        hw::compare_swap(l.word, word, insert(l, word, f(old)), elsewhere);
    if (seen == word) return old;
    word = seen;
  }
}

}  // namespace

// Each answers first from whether this process shares memory with other
// nodes at all (a relaxed load of a node-private flag): not in a one-node
// run, before boot or in a forked child, where every object is homed here
// and there is nothing to synchronize, so a one-node program's locks and
// atomics pay a call and one load. (Inlining that load into the program
// would save the call, but an exported variable is copied into the
// executable's .bss by a copy relocation, and the executable's static data
// is shared by every node.)
void sync_release() noexcept {
  if (rt::sharing_with_peers()) rt::coherence::release();
}
// Every lock taken and every acquiring atomic comes here, so a thread that
// takes a lock in a loop lets its node's starved service thread run here
// (transport.hpp, yield_if_messages_wait).
void sync_acquire() noexcept {
  if (!rt::sharing_with_peers()) return;
  rt::coherence::acquire();
  if (rt::transport* t = rt::current_transport()) t->yield_if_messages_wait();
}

bool is_home(const volatile void* p) noexcept {
  return !rt::sharing_with_peers() || rt::locate(const_cast<const void*>(p)).here;
}

std::uint64_t remote_load(const volatile void* p, unsigned size) {
  const lane l = lane_of(p, size);
  return extract(l, hw::load(l.word, elsewhere));
}

std::uint64_t remote_exchange(volatile void* p, unsigned size, std::uint64_t v) {
  if (size == 8) return hw::exchange(whole_word(p), v, elsewhere);
  return remote_update(p, size, [v](std::uint64_t) { return v; });
}

bool remote_compare_exchange(volatile void* p, unsigned size, std::uint64_t& expected,
                             std::uint64_t desired) {
  if (size == 8) {  // the object is the word: one remote operation
    const std::uint64_t seen = hw::compare_swap(whole_word(p), expected, desired, elsewhere);
    if (seen == expected) return true;
    expected = seen;
    return false;
  }
  const lane l = lane_of(p, size);
  const std::uint64_t want = expected & (l.mask >> l.shift);
  std::uint64_t word = hw::load(l.word, elsewhere);
  for (;;) {
    const std::uint64_t old = extract(l, word);
    if (old != want) {
      expected = old;
      return false;
    }
    const std::uint64_t seen =
        hw::compare_swap(l.word, word, insert(l, word, desired), elsewhere);
    if (seen == word) return true;
    word = seen;  // a neighbour's bytes (or ours) changed: look again
  }
}

std::uint64_t remote_fetch_add(volatile void* p, unsigned size, std::uint64_t v) {
  if (size == 8) return hw::fetch_add(whole_word(p), v, elsewhere);
  return remote_update(p, size, [v](std::uint64_t old) { return old + v; });
}

// Large objects: byte copies under the address's lock, at the home.
namespace {

// The object's lock, held, and where the object is (located once).
struct locked {
  void* p;
  bool here;
  explicit locked(const volatile void* q)
      : p(const_cast<void*>(q)), here(is_home(q)) {
    rt::lock_table::lock(p);
  }
  ~locked() { rt::lock_table::unlock(p); }
};

void copy_from_home(const locked& at, std::size_t size, void* out) {
  if (at.here) {
    std::memcpy(out, at.p, size);
  } else {
    rt::current_transport()->read(out, reinterpret_cast<rt::gaddr>(at.p), size);
  }
}

void copy_to_home(const locked& at, std::size_t size, const void* in) {
  if (at.here) {
    std::memcpy(at.p, in, size);
  } else {
    rt::current_transport()->write(reinterpret_cast<rt::gaddr>(at.p), in, size);
  }
}

}  // namespace

void locked_load(const volatile void* p, std::size_t size, void* out) {
  const locked at(p);
  copy_from_home(at, size, out);
}

void locked_store(volatile void* p, std::size_t size, const void* in) {
  const locked at(p);
  copy_to_home(at, size, in);
}

void locked_exchange(volatile void* p, std::size_t size, const void* in, void* out) {
  const locked at(p);
  copy_from_home(at, size, out);
  copy_to_home(at, size, in);
}

bool locked_compare_exchange(volatile void* p, std::size_t size, void* expected,
                             const void* desired) {
  const locked at(p);
  unsigned char current[256];
  unsigned char* buf = size <= sizeof current ? current : new unsigned char[size];
  copy_from_home(at, size, buf);
  const bool same = std::memcmp(buf, expected, size) == 0;
  if (same) {
    copy_to_home(at, size, desired);
  } else {
    std::memcpy(expected, buf, size);
  }
  if (buf != current) delete[] buf;
  return same;
}

// Blocking: the futex word is the aligned word around the object. Objects
// larger than 8 bytes poll, sleeping a little longer each time.
namespace {

bool wait_impl(const volatile void* p, unsigned size, std::uint64_t old,
               const std::chrono::steady_clock::time_point* deadline) {
  if (size > 8) {
    rt::sched::sleep_until(std::chrono::steady_clock::now() + std::chrono::microseconds(50));
    return deadline == nullptr || std::chrono::steady_clock::now() < *deadline;
  }
  const lane l = lane_of(p, size);
  const std::uint64_t word = hw::load(l.word);
  if (extract(l, word) != (old & (l.mask >> l.shift))) return true;
  if (deadline == nullptr) {
    rt::home_futex::wait(l.word, word);
    return true;
  }
  return rt::home_futex::wait_until(l.word, word, *deadline);
}

}  // namespace

void wait_while_equal(const volatile void* p, unsigned size, std::uint64_t old) {
  wait_impl(p, size, old, nullptr);
}

bool wait_while_equal_until(const volatile void* p, unsigned size, std::uint64_t old,
                            std::chrono::steady_clock::time_point deadline) {
  return wait_impl(p, size, old, &deadline);
}

void wake_waiters(const volatile void* p, bool all) {
  const lane l = lane_of(p, 8);
  rt::home_futex::wake(l.word, all ? rt::home_futex::all : 1);
}

}  // namespace dstd::detail
