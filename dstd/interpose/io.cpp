// The I/O calls that hand program memory to the kernel, for buffers in
// another node's cache frames: read, pread, readv, preadv, recv, recvfrom
// and recvmsg fill a bounce buffer and copy it into the program's; write,
// pwrite, writev, pwritev, send, sendto and sendmsg copy the program's
// bytes into one first (kernel_buffer.hpp says why). The stdio calls that
// pass a caller's buffer to the kernel inside glibc, out of reach of these
// (fread and fwrite of more than the stream's buffer, fputs and puts of a
// long string; std::cout and std::ifstream reach them), are bounced too.
//
// Each call is glibc's, once, on the stand-in: one read(), one datagram,
// the same count, errno and flags as glibc's answer, and a receive's
// MSG_TRUNC length (larger than the buffer) is returned as the kernel
// gave it with only the buffer's bytes copied. Buffers in home memory or
// node-private memory, the runtime's own calls and one-node runs go
// straight to glibc (one relaxed load for the last).
#include <stdio.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "dstd/interpose/kernel_buffer.hpp"
#include "dstd/interpose/next_definition.hpp"

// glibc declares read()'s buffer (and recv()'s, fread()'s) write-only, and
// these are the definitions of those very declarations: GCC then takes the
// look at where the buffer lies (rt::locate() of its address) as a read of
// bytes nobody wrote. Nothing here reads them before the kernel has.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace dstd::interpose {

namespace {

constinit next_definition<ssize_t(int, void*, size_t)> glibc_read{"read"};
constinit next_definition<ssize_t(int, void*, size_t, off_t)> glibc_pread{"pread64"};
constinit next_definition<ssize_t(int, const iovec*, int)> glibc_readv{"readv"};
constinit next_definition<ssize_t(int, const iovec*, int, off_t)> glibc_preadv{"preadv64"};
constinit next_definition<ssize_t(int, const void*, size_t)> glibc_write{"write"};
constinit next_definition<ssize_t(int, const void*, size_t, off_t)> glibc_pwrite{"pwrite64"};
constinit next_definition<ssize_t(int, const iovec*, int)> glibc_writev{"writev"};
constinit next_definition<ssize_t(int, const iovec*, int, off_t)> glibc_pwritev{"pwritev64"};
constinit next_definition<ssize_t(int, void*, size_t, int, sockaddr*, socklen_t*)> glibc_recvfrom{
    "recvfrom"};
constinit next_definition<ssize_t(int, msghdr*, int)> glibc_recvmsg{"recvmsg"};
constinit next_definition<ssize_t(int, const void*, size_t, int, const sockaddr*, socklen_t)>
    glibc_sendto{"sendto"};
constinit next_definition<ssize_t(int, const msghdr*, int)> glibc_sendmsg{"sendmsg"};
constinit next_definition<size_t(void*, size_t, size_t, FILE*)> glibc_fread{"fread"};
constinit next_definition<size_t(void*, size_t, size_t, FILE*)> glibc_fread_unlocked{
    "fread_unlocked"};
constinit next_definition<size_t(const void*, size_t, size_t, FILE*)> glibc_fwrite{"fwrite"};
constinit next_definition<size_t(const void*, size_t, size_t, FILE*)> glibc_fwrite_unlocked{
    "fwrite_unlocked"};
constinit next_definition<int(const char*, FILE*)> glibc_fputs{"fputs"};
constinit next_definition<int(const char*, FILE*)> glibc_fputs_unlocked{"fputs_unlocked"};
constinit next_definition<int(const char*)> glibc_puts{"puts"};

ssize_t no_memory() noexcept {
  errno = ENOMEM;
  return -1;
}

// The kernel fills `n` bytes for the program at `to`: `call(buffer)` runs
// glibc's call on the stand-in. Answers up to `n` bytes are copied (a
// receive with MSG_TRUNC may answer more).
template <class Call>
ssize_t into_program(void* to, std::size_t n, Call call) noexcept {
  bounce_buffer b(n);
  if (b.failed()) return no_memory();
  const ssize_t r = call(b.data());
  if (r > 0) std::memcpy(to, b.data(), std::min(std::size_t(r), n));
  return r;
}

// The kernel takes `n` bytes of the program's at `from`.
template <class Call>
ssize_t from_program(const void* from, std::size_t n, Call call) noexcept {
  bounce_buffer b(n);
  if (b.failed()) return no_memory();
  if (n != 0) std::memcpy(b.data(), from, n);
  return call(b.data());
}

// The iovec forms: glibc's call on one iovec over the stand-in, which is
// what the program's iovecs laid end to end would be to the kernel.
template <class Call>
ssize_t into_program(const iovec* iov, int count, Call call) noexcept {
  std::size_t total = 0;
  if (!total_length(iov, count, total)) return call(iov, count);  // the kernel's EINVAL
  bounce_buffer b(total);
  if (b.failed()) return no_memory();
  const iovec one{b.data(), total};
  const ssize_t r = call(&one, 1);
  if (r > 0) scatter(b.data(), std::min(std::size_t(r), total), iov, count);
  return r;
}

template <class Call>
ssize_t from_program(const iovec* iov, int count, Call call) noexcept {
  std::size_t total = 0;
  if (!total_length(iov, count, total)) return call(iov, count);
  bounce_buffer b(total);
  if (b.failed()) return no_memory();
  gather(iov, count, b.data());
  const iovec one{b.data(), total};
  return call(&one, 1);
}

bool program_iovecs_in_cache_frames(const iovec* iov, int count, const void* ra) noexcept {
  return program_on_cluster(ra) && in_cache_frames(iov, count);
}

// The iovecs of a message header, if the kernel takes them as they are:
// their count and their bytes end to end. Not `valid` where it would
// refuse them (too many, lengths that overflow): the program's own header
// then goes to glibc, for the kernel's EINVAL.
struct message_data {
  explicit message_data(const msghdr* m) noexcept
      : count(m->msg_iovlen <= IOV_MAX ? int(m->msg_iovlen) : 0),
        valid(m->msg_iovlen <= IOV_MAX && total_length(m->msg_iov, count, length)) {}
  int count;
  std::size_t length = 0;
  bool valid;
};

// A message header whose own bytes, name, control data or iovecs may be
// cache frames: a copy of it over node-private memory for glibc's call,
// and what the kernel wrote copied back into the program's afterwards.
class message_header {
 public:
  static bool needed(const msghdr* m) noexcept {
    return in_cache_frames(static_cast<const void*>(m), sizeof *m) || in_cache_frames(m->msg_name, m->msg_namelen) ||
           in_cache_frames(m->msg_control, m->msg_controllen) ||
           in_cache_frames(m->msg_iov, int(std::min<std::size_t>(m->msg_iovlen, IOV_MAX + 1)));
  }

  explicit message_header(const msghdr* m) noexcept
      : program_(m),
        copy_(*m),
        data_(m),
        name_(m->msg_name != nullptr ? m->msg_namelen : 0),
        control_(m->msg_control != nullptr ? m->msg_controllen : 0),
        bytes_(data_.valid ? data_.length : 0) {
    if (!data_.valid || failed()) return;
    if (m->msg_name != nullptr) copy_.msg_name = name_.data();
    if (m->msg_control != nullptr) copy_.msg_control = control_.data();
    one_ = iovec{bytes_.data(), data_.length};
    copy_.msg_iov = &one_;
    copy_.msg_iovlen = 1;
  }

  bool failed() const noexcept { return name_.failed() || control_.failed() || bytes_.failed(); }

  // What glibc's call is given: the stand-in, or the program's own header
  // where the kernel will refuse it anyway.
  msghdr* header() noexcept { return data_.valid ? &copy_ : const_cast<msghdr*>(program_); }

  // Before a send: the program's bytes into the stand-ins.
  void take_from_program() noexcept {
    if (!data_.valid) return;
    if (program_->msg_name != nullptr) std::memcpy(name_.data(), program_->msg_name, program_->msg_namelen);
    if (program_->msg_control != nullptr) {
      std::memcpy(control_.data(), program_->msg_control, program_->msg_controllen);
    }
    gather(program_->msg_iov, data_.count, bytes_.data());
  }

  // After a receive that answered `r`: what the kernel wrote, into the
  // program's header and buffers (never more than they hold).
  void give_to_program(msghdr* m, ssize_t r) const noexcept {
    if (!data_.valid || r < 0) return;
    if (m->msg_name != nullptr) {
      std::memcpy(m->msg_name, name_.data(), std::min(copy_.msg_namelen, m->msg_namelen));
    }
    m->msg_namelen = copy_.msg_namelen;
    if (m->msg_control != nullptr) {
      std::memcpy(m->msg_control, control_.data(), std::min(copy_.msg_controllen, m->msg_controllen));
    }
    m->msg_controllen = copy_.msg_controllen;
    m->msg_flags = copy_.msg_flags;
    scatter(bytes_.data(), std::min(std::size_t(r), data_.length), m->msg_iov, data_.count);
  }

 private:
  const msghdr* program_;
  msghdr copy_;
  message_data data_;
  bounce_buffer name_;
  bounce_buffer control_;
  bounce_buffer bytes_;
  iovec one_{};
};

// A one-buffer message header, for recvfrom and sendto through the
// message stand-in (which covers their address too).
msghdr header_of(const void* name, socklen_t name_length, iovec& one) noexcept {
  msghdr m{};
  m.msg_name = const_cast<void*>(name);
  m.msg_namelen = name != nullptr ? name_length : 0;
  m.msg_iov = &one;
  m.msg_iovlen = 1;
  return m;
}

bool program_header_in_cache_frames(const msghdr* m, const void* ra) noexcept {
  return m != nullptr && program_on_cluster(ra) && message_header::needed(m);
}

// An item count's byte length, or false when it overflows (stdio's own
// answer then stands).
bool item_bytes(std::size_t size, std::size_t count, std::size_t& bytes) noexcept {
  return !__builtin_mul_overflow(size, count, &bytes);
}

// _FORTIFY_SOURCE's check for fread into a buffer of `buflen` bytes.
bool fread_overflows(std::size_t buflen, std::size_t size, std::size_t count) noexcept {
  std::size_t bytes = 0;
  return !item_bytes(size, count, bytes) || bytes > buflen;
}

template <class Fread>
size_t bounced_fread(void* to, size_t size, size_t count, FILE* f, Fread fread_fn) noexcept {
  std::size_t bytes = 0;
  if (!item_bytes(size, count, bytes)) return fread_fn(to, size, count, f);
  bounce_buffer b(bytes);
  if (b.failed()) {
    errno = ENOMEM;
    return 0;
  }
  const size_t items = fread_fn(b.data(), size, count, f);
  if (items != 0) std::memcpy(to, b.data(), items * size);
  return items;
}

template <class Fwrite>
size_t bounced_fwrite(const void* from, size_t size, size_t count, FILE* f,
                      Fwrite fwrite_fn) noexcept {
  std::size_t bytes = 0;
  if (!item_bytes(size, count, bytes)) return fwrite_fn(from, size, count, f);
  bounce_buffer b(bytes);
  if (b.failed()) {
    errno = ENOMEM;
    return 0;
  }
  if (bytes != 0) std::memcpy(b.data(), from, bytes);
  return fwrite_fn(b.data(), size, count, f);
}

// A string the kernel will read (fputs, puts): bounced with its
// terminator.
template <class Put>
int bounced_string(const char* s, Put put) noexcept {
  const std::size_t n = std::strlen(s) + 1;
  bounce_buffer b(n);
  if (b.failed()) {
    errno = ENOMEM;
    return EOF;
  }
  std::memcpy(b.data(), s, n);
  return put(b.data());
}

bool program_items_in_cache_frames(const void* p, std::size_t size, std::size_t count,
                                   const void* ra) noexcept {
  std::size_t bytes = 0;
  return program_on_cluster(ra) && item_bytes(size, count, bytes) && in_cache_frames(p, bytes);
}

bool program_string_in_cache_frames(const char* s, const void* ra) noexcept {
  return s != nullptr && program_on_cluster(ra) && in_cache_frames(s, std::strlen(s) + 1);
}

// The calls that have a fortified form (_FORTIFY_SOURCE's __read_chk and
// the like, below): one body for both names, given the program's return
// address.

ssize_t read_for(int fd, void* buf, size_t n, const void* ra) noexcept {
  if (!program_buffer_in_cache_frames(buf, n, ra)) return glibc_read.get()(fd, buf, n);
  return into_program(buf, n, [&](void* b) { return glibc_read.get()(fd, b, n); });
}

ssize_t pread_for(int fd, void* buf, size_t n, off_t offset, const void* ra) noexcept {
  if (!program_buffer_in_cache_frames(buf, n, ra)) return glibc_pread.get()(fd, buf, n, offset);
  return into_program(buf, n, [&](void* b) { return glibc_pread.get()(fd, b, n, offset); });
}

ssize_t recvfrom_for(int fd, void* buf, size_t n, int flags, sockaddr* from,
                     socklen_t* from_length, const void* ra) noexcept {
  const bool header_remote =
      program_on_cluster(ra) &&
      (in_cache_frames(from_length, sizeof *from_length) ||
       (from != nullptr && from_length != nullptr && in_cache_frames(from, *from_length)));
  if (!header_remote && !program_buffer_in_cache_frames(buf, n, ra)) {
    return glibc_recvfrom.get()(fd, buf, n, flags, from, from_length);
  }
  if (from == nullptr && from_length == nullptr) {
    return into_program(
        buf, n, [&](void* b) { return glibc_recvfrom.get()(fd, b, n, flags, nullptr, nullptr); });
  }
  iovec one{buf, n};
  msghdr m = header_of(from_length != nullptr ? from : nullptr,
                       from_length != nullptr ? *from_length : 0, one);
  message_header h(&m);
  if (h.failed()) return no_memory();
  const ssize_t r = glibc_recvmsg.get()(fd, h.header(), flags);
  h.give_to_program(&m, r);
  if (r >= 0 && from_length != nullptr) *from_length = m.msg_namelen;
  return r;
}

using fread_fn = size_t(void*, size_t, size_t, FILE*);

size_t fread_for(fread_fn* glibc, void* to, size_t size, size_t count, FILE* f,
                 const void* ra) noexcept {
  if (!program_items_in_cache_frames(to, size, count, ra)) return glibc(to, size, count, f);
  return bounced_fread(to, size, count, f, glibc);
}

}  // namespace

}  // namespace dstd::interpose

namespace io = dstd::interpose;

#define DSTD_RA __builtin_return_address(0)

extern "C" {



[[gnu::visibility("default")]] ssize_t readv(int fd, const iovec* iov, int count) {
  if (!io::program_iovecs_in_cache_frames(iov, count, DSTD_RA)) {
    return io::glibc_readv.get()(fd, iov, count);
  }
  return io::into_program(iov, count,
                          [&](const iovec* v, int c) { return io::glibc_readv.get()(fd, v, c); });
}

[[gnu::visibility("default")]] ssize_t preadv64(int fd, const iovec* iov, int count, off_t offset) {
  if (!io::program_iovecs_in_cache_frames(iov, count, DSTD_RA)) {
    return io::glibc_preadv.get()(fd, iov, count, offset);
  }
  return io::into_program(
      iov, count, [&](const iovec* v, int c) { return io::glibc_preadv.get()(fd, v, c, offset); });
}

[[gnu::visibility("default")]] ssize_t write(int fd, const void* buf, size_t n) {
  if (!io::program_buffer_in_cache_frames(buf, n, DSTD_RA)) return io::glibc_write.get()(fd, buf, n);
  return io::from_program(buf, n, [&](const void* b) { return io::glibc_write.get()(fd, b, n); });
}

[[gnu::visibility("default")]] ssize_t pwrite64(int fd, const void* buf, size_t n, off_t offset) {
  if (!io::program_buffer_in_cache_frames(buf, n, DSTD_RA)) {
    return io::glibc_pwrite.get()(fd, buf, n, offset);
  }
  return io::from_program(buf, n,
                          [&](const void* b) { return io::glibc_pwrite.get()(fd, b, n, offset); });
}

[[gnu::visibility("default")]] ssize_t writev(int fd, const iovec* iov, int count) {
  if (!io::program_iovecs_in_cache_frames(iov, count, DSTD_RA)) {
    return io::glibc_writev.get()(fd, iov, count);
  }
  return io::from_program(iov, count,
                          [&](const iovec* v, int c) { return io::glibc_writev.get()(fd, v, c); });
}

[[gnu::visibility("default")]] ssize_t pwritev64(int fd, const iovec* iov, int count, off_t offset) {
  if (!io::program_iovecs_in_cache_frames(iov, count, DSTD_RA)) {
    return io::glibc_pwritev.get()(fd, iov, count, offset);
  }
  return io::from_program(
      iov, count, [&](const iovec* v, int c) { return io::glibc_pwritev.get()(fd, v, c, offset); });
}



[[gnu::visibility("default")]] ssize_t recvmsg(int fd, msghdr* m, int flags) {
  if (!io::program_header_in_cache_frames(m, DSTD_RA)) return io::glibc_recvmsg.get()(fd, m, flags);
  io::message_header h(m);
  if (h.failed()) return io::no_memory();
  const ssize_t r = io::glibc_recvmsg.get()(fd, h.header(), flags);
  h.give_to_program(m, r);
  return r;
}

[[gnu::visibility("default")]] ssize_t sendto(int fd, const void* buf, size_t n, int flags,
                                              const sockaddr* to, socklen_t to_length) {
  const void* ra = DSTD_RA;
  if (!io::program_buffer_in_cache_frames(buf, n, ra) &&
      !io::program_buffer_in_cache_frames(to, to_length, ra)) {
    return io::glibc_sendto.get()(fd, buf, n, flags, to, to_length);
  }
  iovec one{const_cast<void*>(buf), n};
  const msghdr m = io::header_of(to, to_length, one);
  io::message_header h(&m);
  if (h.failed()) return io::no_memory();
  h.take_from_program();
  return io::glibc_sendmsg.get()(fd, h.header(), flags);
}

[[gnu::visibility("default")]] ssize_t send(int fd, const void* buf, size_t n, int flags) {
  if (!io::program_buffer_in_cache_frames(buf, n, DSTD_RA)) {
    return io::glibc_sendto.get()(fd, buf, n, flags, nullptr, 0);
  }
  return io::from_program(
      buf, n, [&](const void* b) { return io::glibc_sendto.get()(fd, b, n, flags, nullptr, 0); });
}

[[gnu::visibility("default")]] ssize_t sendmsg(int fd, const msghdr* m, int flags) {
  if (!io::program_header_in_cache_frames(m, DSTD_RA)) return io::glibc_sendmsg.get()(fd, m, flags);
  io::message_header h(m);
  if (h.failed()) return io::no_memory();
  h.take_from_program();
  return io::glibc_sendmsg.get()(fd, h.header(), flags);
}



[[gnu::visibility("default")]] size_t fwrite(const void* from, size_t size, size_t count, FILE* f) {
  if (!io::program_items_in_cache_frames(from, size, count, DSTD_RA)) {
    return io::glibc_fwrite.get()(from, size, count, f);
  }
  return io::bounced_fwrite(from, size, count, f, io::glibc_fwrite.get());
}

[[gnu::visibility("default")]] size_t fwrite_unlocked(const void* from, size_t size, size_t count,
                                                      FILE* f) {
  if (!io::program_items_in_cache_frames(from, size, count, DSTD_RA)) {
    return io::glibc_fwrite_unlocked.get()(from, size, count, f);
  }
  return io::bounced_fwrite(from, size, count, f, io::glibc_fwrite_unlocked.get());
}

[[gnu::visibility("default")]] int fputs(const char* s, FILE* f) {
  if (!io::program_string_in_cache_frames(s, DSTD_RA)) return io::glibc_fputs.get()(s, f);
  return io::bounced_string(s, [&](const char* b) { return io::glibc_fputs.get()(b, f); });
}

[[gnu::visibility("default")]] int fputs_unlocked(const char* s, FILE* f) {
  if (!io::program_string_in_cache_frames(s, DSTD_RA)) return io::glibc_fputs_unlocked.get()(s, f);
  return io::bounced_string(s, [&](const char* b) { return io::glibc_fputs_unlocked.get()(b, f); });
}

[[gnu::visibility("default")]] int puts(const char* s) {
  if (!io::program_string_in_cache_frames(s, DSTD_RA)) return io::glibc_puts.get()(s);
  return io::bounced_string(s, [&](const char* b) { return io::glibc_puts.get()(b); });
}

[[gnu::visibility("default")]] ssize_t read(int fd, void* buf, size_t n) {
  return io::read_for(fd, buf, n, DSTD_RA);
}
[[gnu::visibility("default")]] ssize_t pread64(int fd, void* buf, size_t n, off_t offset) {
  return io::pread_for(fd, buf, n, offset, DSTD_RA);
}
[[gnu::visibility("default")]] ssize_t recvfrom(int fd, void* buf, size_t n, int flags,
                                                sockaddr* from, socklen_t* from_length) {
  return io::recvfrom_for(fd, buf, n, flags, from, from_length, DSTD_RA);
}
[[gnu::visibility("default")]] ssize_t recv(int fd, void* buf, size_t n, int flags) {
  return io::recvfrom_for(fd, buf, n, flags, nullptr, nullptr, DSTD_RA);
}
[[gnu::visibility("default")]] size_t fread(void* to, size_t size, size_t count, FILE* f) {
  return io::fread_for(io::glibc_fread.get(), to, size, count, f, DSTD_RA);
}
[[gnu::visibility("default")]] size_t fread_unlocked(void* to, size_t size, size_t count, FILE* f) {
  return io::fread_for(io::glibc_fread_unlocked.get(), to, size, count, f, DSTD_RA);
}

// The fortified forms a program built with _FORTIFY_SOURCE calls instead
// (glibc's would call its own read, past these): the same size checks as
// glibc's, then the same body.
[[gnu::visibility("default")]] ssize_t __read_chk(int fd, void* buf, size_t n, size_t buflen) {
  if (n > buflen) __chk_fail();
  return io::read_for(fd, buf, n, DSTD_RA);
}
[[gnu::visibility("default")]] ssize_t __pread64_chk(int fd, void* buf, size_t n, off_t offset,
                                                     size_t buflen) {
  if (n > buflen) __chk_fail();
  return io::pread_for(fd, buf, n, offset, DSTD_RA);
}
[[gnu::visibility("default")]] ssize_t __recv_chk(int fd, void* buf, size_t n, size_t buflen,
                                                  int flags) {
  if (n > buflen) __chk_fail();
  return io::recvfrom_for(fd, buf, n, flags, nullptr, nullptr, DSTD_RA);
}
[[gnu::visibility("default")]] ssize_t __recvfrom_chk(int fd, void* buf, size_t n, size_t buflen,
                                                      int flags, sockaddr* from,
                                                      socklen_t* from_length) {
  if (n > buflen) __chk_fail();
  return io::recvfrom_for(fd, buf, n, flags, from, from_length, DSTD_RA);
}
[[gnu::visibility("default")]] size_t __fread_chk(void* to, size_t buflen, size_t size, size_t count,
                                                  FILE* f) {
  if (io::fread_overflows(buflen, size, count)) __chk_fail();
  return io::fread_for(io::glibc_fread.get(), to, size, count, f, DSTD_RA);
}
[[gnu::visibility("default")]] size_t __fread_unlocked_chk(void* to, size_t buflen, size_t size,
                                                           size_t count, FILE* f) {
  if (io::fread_overflows(buflen, size, count)) __chk_fail();
  return io::fread_for(io::glibc_fread_unlocked.get(), to, size, count, f, DSTD_RA);
}

// The same calls under their other names (on x86-64 off_t is 64 bits, so
// glibc's two names are one function).
[[gnu::visibility("default"), gnu::alias("pread64")]] ssize_t pread(int, void*, size_t, off_t);
[[gnu::visibility("default"), gnu::alias("pwrite64")]] ssize_t pwrite(int, const void*, size_t, off_t);
[[gnu::visibility("default"), gnu::alias("__pread64_chk")]] ssize_t __pread_chk(int, void*, size_t,
                                                                             off_t, size_t);
[[gnu::visibility("default"), gnu::alias("preadv64")]] ssize_t preadv(int, const iovec*, int, off_t);
[[gnu::visibility("default"), gnu::alias("pwritev64")]] ssize_t pwritev(int, const iovec*, int, off_t);

}  // extern "C"
