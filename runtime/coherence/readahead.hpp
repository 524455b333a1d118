// Sequential readahead (issue 18 item 3, after DiLOS): how many pages past
// a faulting one the fault should fetch with it.
//
// Why: a thread that scans another node's memory page by page otherwise
// pays a whole fault (signal, fetch, mprotect) per page. A fault on the
// page just past what a recent fault fetched continues a *stream*; it
// fetches the next `window` pages too, and the window doubles with each
// continuation up to max_pages (128 KiB), so a scan soon costs one fault
// per 33 pages while a fault that continues nothing fetches one page, as
// before. A few streams per node at once, for scans by several threads; a
// fault that continues none replaces the oldest.
//
// The same table, a second instance, drives write-ahead: a write fault
// that continues a stream of write faults makes the next pages writable
// with it (coherence.cpp, take_writable_ahead).
//
// Racy on purpose, and safe in a signal handler: the table only says how
// much to try; each page is still try-locked, listed and fetched at most
// once by the fault path (coherence.cpp). Relaxed atomics, no locks.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

namespace dstd::rt::coherence {

class readahead {
 public:
  static constexpr std::uint64_t max_pages = 32;

  // A fault on the page with `index` (page directory index): the number of
  // pages after it to fetch with it.
  std::uint64_t after_fault(std::uint64_t index) noexcept;

  // Every stream ends (coherence::forget_readahead_streams, for tests).
  void forget() noexcept;

 private:
  struct stream {
    std::atomic<std::uint64_t> next{~0ull};  // the index that continues it
    std::atomic<std::uint64_t> window{0};
  };
  static constexpr unsigned streams = 8;
  std::array<stream, streams> streams_;
  std::atomic<unsigned> oldest_{0};
};

}  // namespace dstd::rt::coherence
