// A completion counts a caller's outstanding transport operations.
//
// Why: every backend finishes operations asynchronously (verbs through a
// completion queue, ucx through a callback, shm at once or, in delayed mode,
// on its delay thread), and the caller wants to post a batch and then wait
// once. How wait() waits depends on the caller's context (waiting.hpp): a
// fiber parks, so its worker runs other fibers; any other caller spins
// briefly, then sleeps on a futex.
//
// The waiter is recorded by expect(), before anything is posted, so that
// finish() knows whom to unpark without touching the completion after the
// count reaches zero (the waiter may return and free it at once). Expect
// and wait on the same fiber or thread.
//
// Some results the waiter can collect itself: on shm a reply is written
// straight into a slot of the caller's node (shm/reply_slots.hpp), and a
// waiter that polls it while it spins needs no other thread to finish the
// call. Such a backend sets a poller; wait() polls while it spins and once
// more, with `parking`, before it parks or sleeps: from then on the backend
// must have another thread (its service thread) finish what is left.
#pragma once

#include <atomic>
#include <cstdint>

namespace dstd::rt {

class completion;

class completion_poller {
 public:
  // Finishes what of `c` has arrived; with `parking`, also arranges that
  // what arrives later is finished by another thread.
  virtual void poll(completion& c, bool parking) = 0;

 protected:
  ~completion_poller() = default;
};

class completion {
 public:
  completion() = default;
  completion(const completion&) = delete;
  completion& operator=(const completion&) = delete;

  // Announce `n` more operations; call before posting them.
  void expect(std::uint32_t n = 1);
  // One operation finished (called by the backend, possibly on another thread).
  void finish();
  bool done() const { return (state_.load(std::memory_order_acquire) & count_mask) == 0; }
  // Until every expected operation has finished: park (a fiber) or block.
  void wait();
  // The backend's poller for results the waiter collects (see above); set
  // by the waiter's own posts, one poller per completion.
  void poll_with(completion_poller* p) { poller_ = p; }

 private:
  // Sets `bit` unless the count is zero (then false); `state` is the state
  // with the bit set.
  bool announce(std::uint32_t bit, std::uint32_t& state);
  // Spins and yields while polling, then hands what is left to the poller's
  // other thread (above).
  void spin_then_hand_over();
  void park_until_done();
  void block_until_done();

  static constexpr std::uint32_t sleeper_bit = 1u << 31;  // a thread sleeps on the futex
  static constexpr std::uint32_t parked_bit = 1u << 30;   // the waiter fiber parks
  static constexpr std::uint32_t count_mask = parked_bit - 1;
  std::atomic<std::uint32_t> state_{0};
  std::atomic<void*> waiter_{nullptr};  // the fiber to unpark; set by expect()
  completion_poller* poller_ = nullptr;  // waiter's thread only
};

}  // namespace dstd::rt
