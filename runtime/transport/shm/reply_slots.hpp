// Replies written straight into the caller's node, taken by the caller.
//
// Why: a reply that goes through the ring to the caller's node waits for that
// node's service thread, which then finishes the caller's completion: three
// threads take turns in every round trip (the caller, the callee's service
// thread, the caller's service thread). Where cores are fewer than that (CI
// has two), each turn is a scheduler hand-off: a round trip took 6.5 µs,
// and three threads passing a word around on two cores take 5.9 µs where
// two take 0.1 µs (docs/BENCHMARKS.md, "Replies into the caller's slot").
// So the callee writes a small reply into a slot of the caller's node, in
// the control segment, and the caller, which polls its slots while it spins
// (completion.hpp), takes it itself.
//
// A slot's state word is generation << 2 | state:
//   free ─take─▶ waiting ─reply─▶ ready ─claim─▶ free
//                   │ caller about to park or sleep
//                   ▼
//                 parked ─reply─▶ ready, and a slot_ready record to the
//                                 caller's node, whose service thread claims
// Only a claim (ready → free, one compare-and-swap) delivers, so a reply is
// delivered once; the generation, carried in the call's cookie, keeps a late
// record or a poller holding an old view from claiming a slot since reused.
// A reply larger than a slot goes through the ring as before, tagged with
// the slot; the caller's service thread claims it from waiting or parked.
// Calls made while every slot is taken do not use slots. In the delayed
// mode (delay_line.hpp) the replier's delay line writes the slot.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "runtime/transport/completion.hpp"
#include "runtime/transport/shm/shm_segments.hpp"

namespace dstd::rt::shm {

class reply_slots final : public completion_poller {
 public:
  enum state : std::uint64_t { free = 0, waiting = 1, parked = 2, ready = 3 };

  // `all`: every node's slots, node by node.
  reply_slots(reply_slot* all, std::uint32_t self) : all_(all), mine_(all + std::size_t(self) * reply_slots_per_node) {}

  // Caller: a slot of this node for a call whose reply goes into `reply`
  // and finishes `c`; its cookie, or 0 when every slot is taken.
  std::uint64_t take(std::vector<std::byte>& reply, completion& c);

  static bool is_slot_cookie(std::uint64_t cookie) { return (cookie & 1) != 0; }

  // Replier (any thread of the callee's node): writes the reply of `to`'s
  // call `cookie` (len <= reply_slot_bytes) into its slot. True when the
  // caller parked: its service thread must then be sent a slot_ready record.
  bool write(std::uint32_t to, std::uint64_t cookie, const void* data, std::size_t len);

  // Service thread of the caller's node: a slot_ready record (the reply is
  // in the slot; nothing to do if the caller took it already).
  void deliver_ready(std::uint64_t cookie);
  // Service thread of the caller's node: a reply that came through the ring.
  void deliver_from_ring(std::uint64_t cookie, std::span<const std::byte> payload);

  // The waiter: takes its replies that are ready; with `parking`, marks its
  // waiting slots parked.
  void poll(completion& c, bool parking) override;

 private:
  struct owner {
    std::atomic<std::vector<std::byte>*> reply{nullptr};
    std::atomic<completion*> done{nullptr};
  };

  // Ready → free, then the payload (the slot's, or `from_ring`) into the
  // owner's reply, the slot back to the free mask, and the owner finished.
  void deliver(unsigned i, std::span<const std::byte> payload);

  reply_slot* all_;
  reply_slot* mine_;
  std::atomic<std::uint64_t> free_mask_{~std::uint64_t{0}};  // bit i: slot i is free
  std::array<owner, reply_slots_per_node> owners_{};
  static_assert(reply_slots_per_node == 64, "free_mask_ has one bit per slot");
};

}  // namespace dstd::rt::shm
