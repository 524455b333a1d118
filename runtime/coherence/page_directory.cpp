// See page_directory.hpp.
#include "runtime/coherence/page_directory.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "runtime/common/assert.hpp"
#include "runtime/common/fatal.hpp"

namespace dstd::rt::coherence {

namespace {

// A dirty page, and only a dirty page, has a twin.
void check_twin(std::uint64_t index, page_state st, std::uint32_t twin) {
  DSTD_ASSERT(st <= page_state::dirty, "page %lu in unknown state %d",
              static_cast<unsigned long>(index), static_cast<int>(st));
  DSTD_ASSERT((st == page_state::dirty) == (twin != 0), "page %lu in state %d with twin slot %u",
              static_cast<unsigned long>(index), static_cast<int>(st), twin);
}

void* reserve(std::uint64_t bytes, const char* what) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) fatal("cannot reserve the %s: %s", what, std::strerror(errno));
  return p;
}
}  // namespace

void page_list::init(std::uint64_t capacity) {
  capacity_ = capacity;
  entries_ = static_cast<std::uint64_t*>(reserve(capacity * sizeof(std::uint64_t), "page list"));
}

void page_list::push(std::uint64_t index) noexcept {
  std::lock_guard<spin_lock> guard(lock_);
  const std::uint64_t n = count_.load(std::memory_order_relaxed);
  DSTD_ASSERT(n < capacity_, "page %lu pushed on a full page list (%lu entries): a page was "
              "listed twice between two takes", static_cast<unsigned long>(index),
              static_cast<unsigned long>(n));
  entries_[n] = index;
  count_.store(n + 1, std::memory_order_release);
}

std::uint64_t page_list::take_all(std::uint64_t* out, std::uint64_t max) noexcept {
  std::lock_guard<spin_lock> guard(lock_);
  const std::uint64_t count = count_.load(std::memory_order_relaxed);
  const std::uint64_t n = count < max ? count : max;
  std::memcpy(out, entries_ + (count - n), n * sizeof(std::uint64_t));
  count_.store(count - n, std::memory_order_release);
  return n;
}

void page_directory::init(std::uint64_t pages) {
  states_ = static_cast<std::uint8_t*>(reserve(pages, "page state table"));
  twins_ = static_cast<std::uint32_t*>(reserve(pages * sizeof(std::uint32_t), "twin table"));
  versions_ =
      static_cast<std::uint32_t*>(reserve(pages * sizeof(std::uint32_t), "page version table"));
  listed_ = static_cast<std::uint8_t*>(reserve(pages, "listed flag table"));
  flushed_ = static_cast<std::uint8_t*>(reserve(pages, "flushed flag table"));
  cached.init(pages);
  dirty.init(pages);
}

void page_directory::list_cached(std::uint64_t index) noexcept {
  if (listed_[index]) return;
  listed_[index] = 1;
  cached.push(index);
}

page_state page_directory::lock(std::uint64_t index) noexcept {
  std::atomic_ref<std::uint8_t> s(states_[index]);
  std::uint8_t v = s.load(std::memory_order_relaxed);
  for (;;) {
    if (!(v & locked_bit) &&
        s.compare_exchange_weak(v, v | locked_bit, std::memory_order_acquire)) {
      check_twin(index, static_cast<page_state>(v), twins_[index]);
      return static_cast<page_state>(v);
    }
    __builtin_ia32_pause();
    v = s.load(std::memory_order_relaxed);
  }
}

bool page_directory::try_lock_in(std::uint64_t index, page_state st) noexcept {
  auto v = static_cast<std::uint8_t>(st);
  return std::atomic_ref<std::uint8_t>(states_[index])
      .compare_exchange_strong(v, v | locked_bit, std::memory_order_acquire);
}

void page_directory::unlock(std::uint64_t index, page_state st) noexcept {
  DSTD_ASSERT(std::atomic_ref<std::uint8_t>(states_[index]).load(std::memory_order_relaxed) &
                  locked_bit,
              "page %lu unlocked while not locked", static_cast<unsigned long>(index));
  check_twin(index, st, twins_[index]);
  std::atomic_ref<std::uint8_t>(states_[index])
      .store(static_cast<std::uint8_t>(st), std::memory_order_release);
}

}  // namespace dstd::rt::coherence
