// One message ring in the shm control segment: a byte ring carrying records
// from one node to another.
//
// Why a byte ring of variable-length records: messages range from 16-byte
// acks to 60 KiB payloads; fixed slots would waste most of the ring. The ring
// is single-producer (the sending node serializes its threads with a local
// lock) and single-consumer (the receiving node's service thread), so head
// and tail need only acquire/release ordering.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/transport/shm/shm_segments.hpp"

namespace dstd::rt::shm {

// slot_ready: a reply is in the caller's slot and the caller parked
// (reply_slots.hpp); no payload.
enum class record_kind : std::uint8_t { send = 1, call = 2, reply = 3, slot_ready = 4 };

struct record_header {
  std::uint32_t length;  // payload bytes
  std::uint16_t handler;
  record_kind kind;
  std::uint8_t reserved;
  std::uint64_t cookie;  // call/reply/slot_ready: identifies the waiting caller
};
static_assert(sizeof(record_header) == 16);

class ring_view {
 public:
  ring_view() = default;
  ring_view(ring_header* h, std::byte* data, std::uint64_t capacity)
      : h_(h), data_(data), capacity_(capacity) {}

  ring_header& header() const { return *h_; }

  static constexpr std::uint64_t record_bytes(std::size_t payload) {
    return (sizeof(record_header) + payload + 7) & ~std::uint64_t{7};
  }

  // Producer: append one record if it fits. Returns false when full.
  bool try_push(const record_header& rh, const void* payload) {
    const std::uint64_t need = record_bytes(rh.length);
    const std::uint64_t tail = h_->tail.load(std::memory_order_relaxed);
    const std::uint64_t head = h_->head.load(std::memory_order_acquire);
    if (capacity_ - (tail - head) < need) return false;
    copy_in(tail, &rh, sizeof rh);
    if (rh.length) copy_in(tail + sizeof rh, payload, rh.length);
    h_->tail.store(tail + need, std::memory_order_release);
    return true;
  }

  // Consumer: read the next record's header, if any.
  bool peek(record_header& rh) const {
    const std::uint64_t head = h_->head.load(std::memory_order_relaxed);
    if (h_->tail.load(std::memory_order_acquire) == head) return false;
    copy_out(head, &rh, sizeof rh);
    return true;
  }

  // Consumer: copy the payload of the record peek() returned.
  void read_payload(const record_header& rh, void* out) const {
    copy_out(h_->head.load(std::memory_order_relaxed) + sizeof rh, out, rh.length);
  }

  // Consumer: drop the record peek() returned.
  void pop(const record_header& rh) {
    h_->head.fetch_add(record_bytes(rh.length), std::memory_order_release);
  }

  bool empty() const {
    return h_->tail.load(std::memory_order_acquire) == h_->head.load(std::memory_order_relaxed);
  }

 private:
  void copy_in(std::uint64_t pos, const void* src, std::size_t n) {
    if (n == 0) return;  // src may be null then, and memcpy must not see it
    const std::uint64_t at = pos % capacity_;
    const std::size_t first = n < capacity_ - at ? n : static_cast<std::size_t>(capacity_ - at);
    std::memcpy(data_ + at, src, first);
    std::memcpy(data_, static_cast<const std::byte*>(src) + first, n - first);
  }
  void copy_out(std::uint64_t pos, void* dst, std::size_t n) const {
    if (n == 0) return;  // dst may be null then (an empty payload's buffer)
    const std::uint64_t at = pos % capacity_;
    const std::size_t first = n < capacity_ - at ? n : static_cast<std::size_t>(capacity_ - at);
    std::memcpy(dst, data_ + at, first);
    std::memcpy(static_cast<std::byte*>(dst) + first, data_, n - first);
  }

  ring_header* h_ = nullptr;
  std::byte* data_ = nullptr;
  std::uint64_t capacity_ = 0;
};

}  // namespace dstd::rt::shm
