// Program memory handed to the kernel: a node-private stand-in for a buffer
// or a path name that lies in another node's cache frames.
//
// Why: coherence works by page protection (docs/DESIGN.md §4): a cache frame
// is PROT_NONE until fetched and read-only until written, and the SIGSEGV
// that fetches or twins it only comes from user-space accesses. A system
// call that reads or writes such a page (read() into a vector main
// allocated, write() of a string homed elsewhere) gets EFAULT from the
// kernel instead, and the program a failed call it did nothing wrong to
// deserve. So the interposed I/O and path calls (io.cpp, path.cpp) give
// the kernel a bounce buffer in memory this node owns, and copy between it
// and the program's buffer in user space, where every access takes the
// ordinary coherent fault. Making the frames accessible first and passing
// them straight through would save the copy, but a flush or an acquire of
// another worker may protect them again before the kernel touches them (a
// blocking recv touches them much later): the call would still fail, or
// drop a datagram. The copy is paid only for cache frames; home memory and
// node-private memory go straight to the kernel.
#pragma once

#include <sys/mman.h>
#include <sys/uio.h>

#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "dstd/interpose/route.hpp"
#include "runtime/heap/address_space.hpp"

// glibc's end of a failed _FORTIFY_SOURCE check (exported), for the
// fortified forms io.cpp and path.cpp define.
extern "C" [[noreturn]] void __chk_fail(void);

namespace dstd::interpose {

// True when the kernel cannot be given [p, p+n) as it is: some of it is
// another node's cache frames. Checked at both ends: one buffer lies in
// one region, and a range that changes region between its ends is bounced
// whole.
inline bool in_cache_frames(const void* p, std::size_t n) noexcept {
  if (p == nullptr || n == 0) return false;
  const rt::location first = rt::locate(p);
  const rt::location last = rt::locate(static_cast<const char*>(p) + (n - 1));
  return !first.here || !last.here || first.global != last.global || first.home != last.home;
}

// The array itself (the kernel reads it too) or any buffer it names.
inline bool in_cache_frames(const iovec* iov, int count) noexcept {
  if (iov == nullptr || count <= 0 || count > IOV_MAX) return false;  // the kernel's error
  if (in_cache_frames(static_cast<const void*>(iov), sizeof(iovec) * std::size_t(count))) return true;
  for (int i = 0; i < count; ++i) {
    if (in_cache_frames(iov[i].iov_base, iov[i].iov_len)) return true;
  }
  return false;
}

// True when a program's call (not the runtime's, route.hpp) in a run of
// several nodes hands the kernel memory it cannot use as it is.
inline bool program_buffer_in_cache_frames(const void* p, std::size_t n,
                                           const void* return_address) noexcept {
  return program_on_cluster(return_address) && in_cache_frames(p, n);
}

// Node-private memory for one call: from this node's own partition (home
// memory, never protected) up to `mapped_from` bytes, where tcmalloc hands
// the same pages back call after call; a fresh private mapping above, so
// that a rare huge call does not keep its size in the heap afterwards (at
// the price of a kernel page fault per page: 1 MiB through a fresh mapping
// cost 2.5-3.6 ms on the CI machine, against ~0.1 ms reused). Empty
// (data() == nullptr) when neither can be had.
class bounce_buffer {
 public:
  static constexpr std::size_t mapped_from = std::size_t{64} << 20;

  explicit bounce_buffer(std::size_t n) noexcept : size_(n) {
    if (n == 0) return;
    if (n < mapped_from) {
      data_ = static_cast<char*>(std::malloc(n));
    } else {
      void* m = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
      data_ = m == MAP_FAILED ? nullptr : static_cast<char*>(m);
    }
  }
  ~bounce_buffer() {
    const int saved = errno;  // the call's answer, not the cleanup's
    if (data_ != nullptr) {
      if (size_ < mapped_from) {
        std::free(data_);
      } else {
        munmap(data_, size_);
      }
    }
    errno = saved;
  }
  bounce_buffer(const bounce_buffer&) = delete;
  bounce_buffer& operator=(const bounce_buffer&) = delete;

  char* data() const noexcept { return data_; }
  bool failed() const noexcept { return size_ != 0 && data_ == nullptr; }

 private:
  std::size_t size_;
  char* data_ = nullptr;
};

// A C string the kernel reads (a path name): the program's own pointer
// where it does not start in cache frames, else a node-private copy (a
// string is one object, in one region). At most PATH_MAX bytes are copied
// and terminated, so a longer name still gets the kernel's ENAMETOOLONG.
class kernel_string {
 public:
  kernel_string(const char* s, const void* return_address) noexcept
      : program_(s),
        copy_(s != nullptr && program_on_cluster(return_address) && in_cache_frames(s, 1)
                  ? PATH_MAX + 1
                  : 0) {
    if (copy_.data() == nullptr) return;
    const std::size_t n = strnlen(s, PATH_MAX);
    std::memcpy(copy_.data(), s, n);
    copy_.data()[n] = '\0';
  }

  const char* get() const noexcept { return copy_.data() != nullptr ? copy_.data() : program_; }
  bool failed() const noexcept { return copy_.failed(); }

 private:
  const char* program_;
  bounce_buffer copy_;
};

// The bytes of an iovec array laid end to end; false when they overflow
// what one call can move (the kernel then answers EINVAL itself).
inline bool total_length(const iovec* iov, int count, std::size_t& total) noexcept {
  total = 0;
  for (int i = 0; i < count; ++i) {
    if (iov[i].iov_len > SSIZE_MAX - total) return false;
    total += iov[i].iov_len;
  }
  return true;
}

// Copies the iovecs' bytes into `to`, end to end.
inline void gather(const iovec* iov, int count, char* to) noexcept {
  for (int i = 0; i < count; ++i) {
    if (iov[i].iov_len != 0) std::memcpy(to, iov[i].iov_base, iov[i].iov_len);
    to += iov[i].iov_len;
  }
}

// Copies the first `n` bytes of `from` into the iovecs, in order.
inline void scatter(const char* from, std::size_t n, const iovec* iov, int count) noexcept {
  for (int i = 0; i < count && n != 0; ++i) {
    const std::size_t part = iov[i].iov_len < n ? iov[i].iov_len : n;
    if (part != 0) std::memcpy(iov[i].iov_base, from, part);
    from += part;
    n -= part;
  }
}

}  // namespace dstd::interpose
