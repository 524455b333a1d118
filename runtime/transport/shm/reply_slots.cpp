// Replies written into the caller's node; see reply_slots.hpp.
#include "runtime/transport/shm/reply_slots.hpp"

#include <cstring>

#include "runtime/common/chaos.hpp"
#include "runtime/common/fatal.hpp"

namespace dstd::rt::shm {

namespace {

// Cookie: generation << 8 | slot << 1 | 1 (a pending call's cookie is a
// pointer, so its low bit is clear). The state word keeps the same
// generation, so it wraps at 2^56 calls through one slot.
constexpr std::uint64_t generation_mask = (std::uint64_t{1} << 56) - 1;

unsigned slot_of(std::uint64_t cookie) { return unsigned(cookie >> 1) & (reply_slots_per_node - 1); }
std::uint64_t generation_of(std::uint64_t cookie) { return cookie >> 8; }
std::uint64_t with_state(std::uint64_t generation, reply_slots::state s) { return generation << 2 | s; }
reply_slots::state state_of(std::uint64_t word) { return reply_slots::state(word & 3); }

// The slot of `cookie`, waiting or parked for its reply, to `next`; returns
// the state it left. Anything else is a reply the slot does not expect.
reply_slots::state leave_awaited(reply_slot& s, std::uint64_t cookie, reply_slots::state next,
                                 const char* what) {
  std::uint64_t word = s.state.load(std::memory_order_relaxed);
  for (;;) {
    const reply_slots::state st = state_of(word);
    if ((word >> 2) != generation_of(cookie) || (st != reply_slots::waiting && st != reply_slots::parked)) {
      fatal("%s for reply slot %u, which is not waiting for it (state %#llx, cookie %#llx)", what,
            slot_of(cookie), static_cast<unsigned long long>(word),
            static_cast<unsigned long long>(cookie));
    }
    if (s.state.compare_exchange_weak(word, with_state(generation_of(cookie), next),
                                      std::memory_order_acq_rel, std::memory_order_relaxed)) {
      return st;
    }
  }
}

}  // namespace

std::uint64_t reply_slots::take(std::vector<std::byte>& reply, completion& c) {
  std::uint64_t mask = free_mask_.load(std::memory_order_relaxed);
  unsigned i = 0;
  do {
    if (mask == 0) return 0;
    i = unsigned(__builtin_ctzll(mask));
  } while (!free_mask_.compare_exchange_weak(mask, mask & ~(std::uint64_t{1} << i),
                                             std::memory_order_acquire, std::memory_order_relaxed));
  owners_[i].reply.store(&reply, std::memory_order_relaxed);
  owners_[i].done.store(&c, std::memory_order_relaxed);
  // Only this thread touches the slot's word now (free, and off the mask).
  const std::uint64_t generation =
      ((mine_[i].state.load(std::memory_order_relaxed) >> 2) + 1) & generation_mask;
  // Release: whoever claims the reply sees the owner through the replier's
  // compare-and-swap that follows this store.
  mine_[i].state.store(with_state(generation, waiting), std::memory_order_release);
  return generation << 8 | std::uint64_t{i} << 1 | 1;
}

bool reply_slots::write(std::uint32_t to, std::uint64_t cookie, const void* data, std::size_t len) {
  const unsigned i = slot_of(cookie);
  reply_slot& s = all_[std::size_t(to) * reply_slots_per_node + i];
  s.length = static_cast<std::uint32_t>(len);
  if (len != 0) std::memcpy(s.payload, data, len);
  chaos::point();  // written, not yet ready
  return leave_awaited(s, cookie, ready, "a reply") == parked;
}

void reply_slots::deliver(unsigned i, std::span<const std::byte> payload) {
  const owner& o = owners_[i];
  std::vector<std::byte>* reply = o.reply.load(std::memory_order_relaxed);
  completion* done = o.done.load(std::memory_order_relaxed);
  reply->assign(payload.begin(), payload.end());
  // The slot's bytes are copied out: it may be taken again.
  free_mask_.fetch_or(std::uint64_t{1} << i, std::memory_order_release);
  chaos::point();  // delivered, the caller not yet finished
  done->finish();  // the caller may return and free its buffers now
}

void reply_slots::deliver_ready(std::uint64_t cookie) {
  const unsigned i = slot_of(cookie);
  reply_slot& s = mine_[i];
  std::uint64_t word = with_state(generation_of(cookie), ready);
  // Fails when the caller took the reply after the replier saw it parked.
  if (s.state.compare_exchange_strong(word, with_state(generation_of(cookie), free),
                                      std::memory_order_acq_rel)) {
    deliver(i, std::span<const std::byte>(s.payload, s.length));
  }
}

void reply_slots::deliver_from_ring(std::uint64_t cookie, std::span<const std::byte> payload) {
  const unsigned i = slot_of(cookie);
  leave_awaited(mine_[i], cookie, free, "a reply through the ring");
  deliver(i, payload);
}

void reply_slots::poll(completion& c, bool parking) {
  std::uint64_t taken = ~free_mask_.load(std::memory_order_acquire);
  while (taken != 0) {
    const unsigned i = unsigned(__builtin_ctzll(taken));
    taken &= taken - 1;
    // A slot another thread took since may still name `c` here: then at
    // worst its waiting slot is marked parked (its reply then also goes to
    // the service thread), and a claim delivers to the slot's real owner.
    if (owners_[i].done.load(std::memory_order_relaxed) != &c) continue;
    reply_slot& s = mine_[i];
    std::uint64_t word = s.state.load(std::memory_order_acquire);
    for (;;) {
      const state st = state_of(word);
      if (st == ready) {
        if (s.state.compare_exchange_weak(word, (word & ~std::uint64_t{3}) | free,
                                          std::memory_order_acq_rel, std::memory_order_acquire)) {
          deliver(i, std::span<const std::byte>(s.payload, s.length));
          break;
        }
      } else if (parking && st == waiting) {
        if (s.state.compare_exchange_weak(word, (word & ~std::uint64_t{3}) | parked,
                                          std::memory_order_acq_rel, std::memory_order_acquire)) {
          break;
        }
      } else {
        break;
      }
    }
  }
}

}  // namespace dstd::rt::shm
