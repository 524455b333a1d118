// The cost of libdstd's interposed I/O calls (dstd/interpose/io.cpp): a
// small pread into a buffer of the caller's own node, through libdstd
// (the check where the buffer lies) against glibc's pread called directly;
// and 1 MiB moved by pread and write from a thread on the last node into
// and out of a buffer homed on node 0 (bounced: the kernel fills or drains
// node-private memory, the copy takes the coherent faults) against a buffer
// homed on its own node (straight to the kernel); and a stat() by a path
// name in node 0's memory (copied for the kernel) against the same name in
// the node's own. A one-node run measures the rows on the node's own
// memory only, where every call goes to glibc after one flag check.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <dstd/dstd.hpp>
#include <dstd/thread>
#include <string>
#include <vector>

#include "bench/harness.hpp"

namespace {

using dstd::bench::measure;
using dstd::bench::result;

using pread_fn = ssize_t (*)(int, void*, size_t, off_t);

pread_fn glibc_pread() {
  void* libc = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
  return reinterpret_cast<pread_fn>(dlsym(libc, "pread64"));
}

constexpr std::size_t big = std::size_t{1} << 20;

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "kernel_io_bench: %s failed\n", what);
    std::exit(1);
  }
}

// The rows measured on the calling thread's node, with `far` a buffer of
// `big` bytes homed elsewhere (or nullptr at one node).
std::vector<result> rows_here(const char* file, char* far, const char* far_name) {
  std::vector<result> rows;
  const int fd = open(file, O_RDONLY);
  const int null = open("/dev/null", O_WRONLY);
  check(fd >= 0 && null >= 0, "open");
  std::vector<char> near(big);  // this node's
  const pread_fn glibc = glibc_pread();
  rows.push_back(measure("pread 64 B, own node's buffer, libdstd", [&] {
    check(pread(fd, near.data(), 64, 0) == 64, "pread");
  }, 10000, 51));
  rows.push_back(measure("pread 64 B, own node's buffer, glibc", [&] {
    check(glibc(fd, near.data(), 64, 0) == 64, "glibc pread");
  }, 10000, 51));
  rows.push_back(measure("pread 1 MiB, own node's buffer", [&] {
    check(pread(fd, near.data(), big, 0) == ssize_t(big), "pread");
  }, 10, 51));
  rows.push_back(measure("write 1 MiB to /dev/null, own node's buffer", [&] {
    check(write(null, near.data(), big) == ssize_t(big), "write");
  }, 10, 51));
  const std::string near_name = file;  // this node's copy
  struct stat st {};
  rows.push_back(measure("stat, name in own node's memory", [&] {
    check(stat(near_name.c_str(), &st) == 0, "stat");
  }, 1000, 51));
  if (far != nullptr) {
    rows.push_back(measure("stat, name homed on node 0", [&] {
      check(stat(far_name, &st) == 0, "stat");
    }, 1000, 51));
    rows.push_back(measure("pread 1 MiB, buffer homed on node 0", [&] {
      check(pread(fd, far, big, 0) == ssize_t(big), "pread");
    }, 10, 51));
    rows.push_back(measure("write 1 MiB to /dev/null, buffer homed on node 0", [&] {
      check(write(null, far, big) == ssize_t(big), "write");
    }, 10, 51));
  }
  close(fd);
  close(null);
  return rows;
}

}  // namespace

int main() {
  char file[] = "/tmp/dstd-kernel-io-bench-XXXXXX";
  const int fd = mkstemp(file);
  check(fd >= 0, "mkstemp");
  const std::vector<char> bytes(big, 'x');
  check(write(fd, bytes.data(), big) == ssize_t(big), "write the input");
  close(fd);

  std::vector<char> far(big, 'y');  // homed on node 0
  std::vector<result> rows;
  const auto last = static_cast<dstd::node_id>(dstd::node_count() - 1);
  const std::string far_name = file;  // homed on node 0
  dstd::spawn_on(last, [&] {
    rows = rows_here(file, last == 0 ? nullptr : far.data(), far_name.c_str());
  }).join();
  unlink(file);
  const std::string title = "I/O calls on node " + std::to_string(last) + " of " +
                            std::to_string(dstd::node_count()) + " (per call)";
  dstd::bench::print_table(title.c_str(), rows);
}
