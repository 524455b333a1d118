// The calls that hand the kernel a path name, for names in another node's
// cache frames: the kernel gets a node-private copy (kernel_buffer.hpp
// says why). The common case is a list of paths that main built and
// threads on other nodes open: glibc's fopen (std::ifstream's) never reads
// the name in user space, so its page was never fetched and open() failed
// with EFAULT. A struct or buffer the kernel fills for such a call (stat's,
// readlink's, statvfs's) goes through a node-private copy too.
//
// Covered: the open, fopen and freopen families, the stat family, access,
// unlink, remove, rename, mkdir, rmdir, opendir, chdir, truncate,
// readlink, symlink, link, chmod, utimensat and statvfs, with their *at
// and 64 forms: what programs and std::filesystem use (realpath reads the
// name in user space itself). Names in home or node-private memory, the
// runtime's calls and one-node runs go straight to glibc, as do the rest
// of the path calls.
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "dstd/interpose/kernel_buffer.hpp"
#include "dstd/interpose/next_definition.hpp"

namespace dstd::interpose {

namespace {

// glibc's answer for "could not": -1, or a null pointer.
template <class R>
R failure() noexcept {
  errno = ENOMEM;
  if constexpr (std::is_pointer_v<R>) {
    return nullptr;
  } else {
    return R(-1);
  }
}

// glibc's `fn` on the name(s) the kernel can read.
template <class R, class... Params, class... Args>
R on_names(const kernel_string& a, R (*fn)(Params...), Args... args) noexcept {
  if (a.failed()) return failure<R>();
  return fn(args...);
}

// The mode argument open() and openat() take only with O_CREAT or
// O_TMPFILE, as glibc reads it.
bool takes_mode(int flags) noexcept {
  return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
}

// A struct (or a buffer of `n` bytes) the kernel fills at `out`: filled in
// node-private memory where `out` lies in cache frames, and the first
// `filled(result)` bytes copied over. `call` runs glibc's call on the
// place to fill.
template <class R, class Call, class Filled>
R into_place(void* out, std::size_t n, const void* ra, Call call, Filled filled) noexcept {
  if (!program_buffer_in_cache_frames(out, n, ra)) return call(out);
  bounce_buffer b(n);
  if (b.failed()) return failure<R>();
  const R r = call(b.data());
  if (const std::size_t bytes = filled(r); bytes != 0) std::memcpy(out, b.data(), bytes);
  return r;
}

template <class Stat>
int stat_into(Stat* out, const void* ra, int (*fn)(const char*, Stat*), const kernel_string& name) {
  if (name.failed()) return failure<int>();
  return into_place<int>(
      out, sizeof *out, ra, [&](void* to) { return fn(name.get(), static_cast<Stat*>(to)); },
      [](int r) { return r == 0 ? sizeof(Stat) : 0; });
}

// readlink's answer is a byte count (the name is not terminated).
std::size_t link_bytes(ssize_t r) noexcept { return r > 0 ? std::size_t(r) : 0; }

constinit next_definition<int(const char*, int, ...)> glibc_open{"open"};
constinit next_definition<int(const char*, int, ...)> glibc_open64{"open64"};
constinit next_definition<int(int, const char*, int, ...)> glibc_openat{"openat"};
constinit next_definition<int(int, const char*, int, ...)> glibc_openat64{"openat64"};
constinit next_definition<int(const char*, mode_t)> glibc_creat{"creat"};
constinit next_definition<int(const char*, mode_t)> glibc_creat64{"creat64"};
constinit next_definition<FILE*(const char*, const char*)> glibc_fopen{"fopen"};
constinit next_definition<FILE*(const char*, const char*)> glibc_fopen64{"fopen64"};
constinit next_definition<FILE*(const char*, const char*, FILE*)> glibc_freopen{"freopen"};
constinit next_definition<FILE*(const char*, const char*, FILE*)> glibc_freopen64{"freopen64"};
constinit next_definition<int(const char*, struct stat*)> glibc_stat{"stat"};
constinit next_definition<int(const char*, struct stat*)> glibc_lstat{"lstat"};
constinit next_definition<int(const char*, struct stat64*)> glibc_stat64{"stat64"};
constinit next_definition<int(const char*, struct stat64*)> glibc_lstat64{"lstat64"};
constinit next_definition<int(int, const char*, struct stat*, int)> glibc_fstatat{"fstatat"};
constinit next_definition<int(int, const char*, struct stat64*, int)> glibc_fstatat64{"fstatat64"};
constinit next_definition<int(const char*, int)> glibc_access{"access"};
constinit next_definition<int(int, const char*, int, int)> glibc_faccessat{"faccessat"};
constinit next_definition<int(const char*)> glibc_unlink{"unlink"};
constinit next_definition<int(int, const char*, int)> glibc_unlinkat{"unlinkat"};
constinit next_definition<int(const char*)> glibc_remove{"remove"};
constinit next_definition<int(const char*, const char*)> glibc_rename{"rename"};
constinit next_definition<int(int, const char*, int, const char*)> glibc_renameat{"renameat"};
constinit next_definition<int(const char*, mode_t)> glibc_mkdir{"mkdir"};
constinit next_definition<int(int, const char*, mode_t)> glibc_mkdirat{"mkdirat"};
constinit next_definition<int(const char*)> glibc_rmdir{"rmdir"};
constinit next_definition<DIR*(const char*)> glibc_opendir{"opendir"};
constinit next_definition<int(const char*)> glibc_chdir{"chdir"};
constinit next_definition<int(const char*, off_t)> glibc_truncate{"truncate"};
constinit next_definition<ssize_t(int, const char*, char*, size_t)> glibc_readlinkat{"readlinkat"};
constinit next_definition<int(const char*, const char*)> glibc_symlink{"symlink"};
constinit next_definition<int(const char*, const char*)> glibc_link{"link"};
constinit next_definition<int(const char*, mode_t)> glibc_chmod{"chmod"};
constinit next_definition<int(int, const char*, const timespec*, int)> glibc_utimensat{
    "utimensat"};
constinit next_definition<int(const char*, struct statvfs*)> glibc_statvfs{"statvfs"};

int open_with(int (*fn)(const char*, int, ...), const char* path, int flags, mode_t mode,
              const void* ra) noexcept {
  const kernel_string name(path, ra);
  if (name.failed()) return failure<int>();
  return fn(name.get(), flags, mode);
}

int openat_with(int (*fn)(int, const char*, int, ...), int dir, const char* path, int flags,
                mode_t mode, const void* ra) noexcept {
  const kernel_string name(path, ra);
  if (name.failed()) return failure<int>();
  return fn(dir, name.get(), flags, mode);
}

ssize_t readlinkat_for(int dir, const char* path, char* out, std::size_t n, const void* ra) noexcept {
  const kernel_string a(path, ra);
  if (a.failed()) return failure<ssize_t>();
  return into_place<ssize_t>(
      out, n, ra,
      [&](void* to) { return glibc_readlinkat.get()(dir, a.get(), static_cast<char*>(to), n); },
      link_bytes);
}

// _FORTIFY_SOURCE's open without a mode: glibc's check and message.
void refuse_mode_without_value(int flags) noexcept {
  if (!takes_mode(flags)) return;
  static const char message[] = "*** invalid open call: O_CREAT or O_TMPFILE without mode ***: terminated\n";
  const ssize_t ignored = write(2, message, sizeof message - 1);
  (void)ignored;
  std::abort();
}

}  // namespace

}  // namespace dstd::interpose

namespace ip = dstd::interpose;
using ip::kernel_string;

#define DSTD_RA __builtin_return_address(0)

extern "C" {

// The mode is read as glibc reads it: only with O_CREAT or O_TMPFILE.
#define DSTD_MODE_ARG(flags)              \
  mode_t mode = 0;                        \
  if (ip::takes_mode(flags)) {            \
    va_list args;                         \
    va_start(args, flags);                \
    mode = mode_t(va_arg(args, unsigned)); \
    va_end(args);                         \
  }

[[gnu::visibility("default")]] int open(const char* path, int flags, ...) {
  DSTD_MODE_ARG(flags)
  return ip::open_with(ip::glibc_open.get(), path, flags, mode, DSTD_RA);
}
[[gnu::visibility("default")]] int open64(const char* path, int flags, ...) {
  DSTD_MODE_ARG(flags)
  return ip::open_with(ip::glibc_open64.get(), path, flags, mode, DSTD_RA);
}
[[gnu::visibility("default")]] int openat(int dir, const char* path, int flags, ...) {
  DSTD_MODE_ARG(flags)
  return ip::openat_with(ip::glibc_openat.get(), dir, path, flags, mode, DSTD_RA);
}
[[gnu::visibility("default")]] int openat64(int dir, const char* path, int flags, ...) {
  DSTD_MODE_ARG(flags)
  return ip::openat_with(ip::glibc_openat64.get(), dir, path, flags, mode, DSTD_RA);
}
#undef DSTD_MODE_ARG

[[gnu::visibility("default")]] int creat(const char* path, mode_t mode) {
  const kernel_string a(path, DSTD_RA);
  return ip::on_names(a, ip::glibc_creat.get(), a.get(), mode);
}
[[gnu::visibility("default")]] int creat64(const char* path, mode_t mode) {
  const kernel_string a(path, DSTD_RA);
  return ip::on_names(a, ip::glibc_creat64.get(), a.get(), mode);
}
[[gnu::visibility("default")]] FILE* fopen(const char* path, const char* how) {
  const kernel_string a(path, DSTD_RA);
  return ip::on_names(a, ip::glibc_fopen.get(), a.get(), how);
}
[[gnu::visibility("default")]] FILE* fopen64(const char* path, const char* how) {
  const kernel_string a(path, DSTD_RA);
  return ip::on_names(a, ip::glibc_fopen64.get(), a.get(), how);
}
[[gnu::visibility("default")]] FILE* freopen(const char* path, const char* how, FILE* f) {
  const kernel_string a(path, DSTD_RA);
  return ip::on_names(a, ip::glibc_freopen.get(), a.get(), how, f);
}
[[gnu::visibility("default")]] FILE* freopen64(const char* path, const char* how, FILE* f) {
  const kernel_string a(path, DSTD_RA);
  return ip::on_names(a, ip::glibc_freopen64.get(), a.get(), how, f);
}

[[gnu::visibility("default")]] int stat(const char* path, struct stat* out) {
  return ip::stat_into(out, DSTD_RA, ip::glibc_stat.get(), kernel_string(path, DSTD_RA));
}
[[gnu::visibility("default")]] int lstat(const char* path, struct stat* out) {
  return ip::stat_into(out, DSTD_RA, ip::glibc_lstat.get(), kernel_string(path, DSTD_RA));
}
[[gnu::visibility("default")]] int stat64(const char* path, struct stat64* out) {
  return ip::stat_into(out, DSTD_RA, ip::glibc_stat64.get(), kernel_string(path, DSTD_RA));
}
[[gnu::visibility("default")]] int lstat64(const char* path, struct stat64* out) {
  return ip::stat_into(out, DSTD_RA, ip::glibc_lstat64.get(), kernel_string(path, DSTD_RA));
}
[[gnu::visibility("default")]] int fstatat(int dir, const char* path, struct stat* out, int flags) {
  const kernel_string a(path, DSTD_RA);
  if (a.failed()) return ip::failure<int>();
  return ip::into_place<int>(
      out, sizeof *out, DSTD_RA,
      [&](void* to) {
        return ip::glibc_fstatat.get()(dir, a.get(), static_cast<struct stat*>(to), flags);
      },
      [](int r) { return r == 0 ? sizeof(struct stat) : 0; });
}
[[gnu::visibility("default")]] int fstatat64(int dir, const char* path, struct stat64* out,
                                             int flags) {
  const kernel_string a(path, DSTD_RA);
  if (a.failed()) return ip::failure<int>();
  return ip::into_place<int>(
      out, sizeof *out, DSTD_RA,
      [&](void* to) {
        return ip::glibc_fstatat64.get()(dir, a.get(), static_cast<struct stat64*>(to), flags);
      },
      [](int r) { return r == 0 ? sizeof(struct stat64) : 0; });
}

[[gnu::visibility("default")]] int access(const char* path, int how) {
  const kernel_string a(path, DSTD_RA);
  return ip::on_names(a, ip::glibc_access.get(), a.get(), how);
}
[[gnu::visibility("default")]] int faccessat(int dir, const char* path, int how, int flags) {
  const kernel_string a(path, DSTD_RA);
  return ip::on_names(a, ip::glibc_faccessat.get(), dir, a.get(), how, flags);
}
[[gnu::visibility("default")]] int unlink(const char* path) {
  const kernel_string a(path, DSTD_RA);
  return ip::on_names(a, ip::glibc_unlink.get(), a.get());
}
[[gnu::visibility("default")]] int unlinkat(int dir, const char* path, int flags) {
  const kernel_string a(path, DSTD_RA);
  return ip::on_names(a, ip::glibc_unlinkat.get(), dir, a.get(), flags);
}
[[gnu::visibility("default")]] int remove(const char* path) {
  const kernel_string a(path, DSTD_RA);
  return ip::on_names(a, ip::glibc_remove.get(), a.get());
}
[[gnu::visibility("default")]] int rename(const char* from, const char* to) {
  const kernel_string a(from, DSTD_RA), b(to, DSTD_RA);
  if (b.failed()) return ip::failure<int>();
  return ip::on_names(a, ip::glibc_rename.get(), a.get(), b.get());
}
[[gnu::visibility("default")]] int renameat(int from_dir, const char* from, int to_dir,
                                            const char* to) {
  const kernel_string a(from, DSTD_RA), b(to, DSTD_RA);
  if (b.failed()) return ip::failure<int>();
  return ip::on_names(a, ip::glibc_renameat.get(), from_dir, a.get(), to_dir, b.get());
}
[[gnu::visibility("default")]] int mkdir(const char* path, mode_t mode) {
  const kernel_string a(path, DSTD_RA);
  return ip::on_names(a, ip::glibc_mkdir.get(), a.get(), mode);
}
[[gnu::visibility("default")]] int mkdirat(int dir, const char* path, mode_t mode) {
  const kernel_string a(path, DSTD_RA);
  return ip::on_names(a, ip::glibc_mkdirat.get(), dir, a.get(), mode);
}
[[gnu::visibility("default")]] int rmdir(const char* path) {
  const kernel_string a(path, DSTD_RA);
  return ip::on_names(a, ip::glibc_rmdir.get(), a.get());
}
[[gnu::visibility("default")]] DIR* opendir(const char* path) {
  const kernel_string a(path, DSTD_RA);
  return ip::on_names(a, ip::glibc_opendir.get(), a.get());
}
[[gnu::visibility("default")]] int chdir(const char* path) {
  const kernel_string a(path, DSTD_RA);
  return ip::on_names(a, ip::glibc_chdir.get(), a.get());
}
[[gnu::visibility("default")]] int truncate(const char* path, off_t length) {
  const kernel_string a(path, DSTD_RA);
  return ip::on_names(a, ip::glibc_truncate.get(), a.get(), length);
}
[[gnu::visibility("default")]] int symlink(const char* target, const char* path) {
  const kernel_string a(target, DSTD_RA), b(path, DSTD_RA);
  if (b.failed()) return ip::failure<int>();
  return ip::on_names(a, ip::glibc_symlink.get(), a.get(), b.get());
}
[[gnu::visibility("default")]] int link(const char* from, const char* to) {
  const kernel_string a(from, DSTD_RA), b(to, DSTD_RA);
  if (b.failed()) return ip::failure<int>();
  return ip::on_names(a, ip::glibc_link.get(), a.get(), b.get());
}
[[gnu::visibility("default")]] int chmod(const char* path, mode_t mode) {
  const kernel_string a(path, DSTD_RA);
  return ip::on_names(a, ip::glibc_chmod.get(), a.get(), mode);
}
[[gnu::visibility("default")]] int utimensat(int dir, const char* path, const timespec times[2],
                                             int flags) {
  const kernel_string a(path, DSTD_RA);
  timespec local[2];
  if (times != nullptr && ip::program_buffer_in_cache_frames(times, sizeof local, DSTD_RA)) {
    std::memcpy(local, times, sizeof local);
    times = local;
  }
  return ip::on_names(a, ip::glibc_utimensat.get(), dir, a.get(), times, flags);
}
[[gnu::visibility("default")]] int statvfs(const char* path, struct statvfs* out) {
  return ip::stat_into(out, DSTD_RA, ip::glibc_statvfs.get(), kernel_string(path, DSTD_RA));
}

[[gnu::visibility("default")]] ssize_t readlink(const char* path, char* out, size_t n) {
  return ip::readlinkat_for(AT_FDCWD, path, out, n, DSTD_RA);
}
[[gnu::visibility("default")]] ssize_t readlinkat(int dir, const char* path, char* out, size_t n) {
  return ip::readlinkat_for(dir, path, out, n, DSTD_RA);
}

// The fortified forms a program built with _FORTIFY_SOURCE calls instead
// (glibc's would call its own open and readlink, past these): glibc's
// checks, then the same body.
[[gnu::visibility("default")]] ssize_t __readlink_chk(const char* path, char* out, size_t n,
                                                      size_t buflen) {
  if (n > buflen) __chk_fail();
  return ip::readlinkat_for(AT_FDCWD, path, out, n, DSTD_RA);
}
[[gnu::visibility("default")]] ssize_t __readlinkat_chk(int dir, const char* path, char* out,
                                                        size_t n, size_t buflen) {
  if (n > buflen) __chk_fail();
  return ip::readlinkat_for(dir, path, out, n, DSTD_RA);
}
[[gnu::visibility("default")]] int __open_2(const char* path, int flags) {
  ip::refuse_mode_without_value(flags);
  return ip::open_with(ip::glibc_open.get(), path, flags, 0, DSTD_RA);
}
[[gnu::visibility("default")]] int __open64_2(const char* path, int flags) {
  ip::refuse_mode_without_value(flags);
  return ip::open_with(ip::glibc_open64.get(), path, flags, 0, DSTD_RA);
}
[[gnu::visibility("default")]] int __openat_2(int dir, const char* path, int flags) {
  ip::refuse_mode_without_value(flags);
  return ip::openat_with(ip::glibc_openat.get(), dir, path, flags, 0, DSTD_RA);
}
[[gnu::visibility("default")]] int __openat64_2(int dir, const char* path, int flags) {
  ip::refuse_mode_without_value(flags);
  return ip::openat_with(ip::glibc_openat64.get(), dir, path, flags, 0, DSTD_RA);
}

}  // extern "C"
