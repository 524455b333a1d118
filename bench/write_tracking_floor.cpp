// What the kernel charges for telling a process which of its pages it wrote,
// without the process write-protecting them itself: userfaultfd's
// asynchronous write-protect (UFFD_FEATURE_WP_ASYNC, Linux 6.7) and the
// PAGEMAP_SCAN ioctl on /proc/self/pagemap, which returns the pages written
// since they were last protected and protects them again in the same call.
// This is the mechanism measured for versions and notices of a home's own
// writes (DESIGN §4, "Still planned"): the kernel resolves the write faults
// itself, so there is no SIGSEGV, and a system call that writes into a
// tracked page does not fail with EFAULT; writes through another mapping of
// the same memory (a releaser applying its diffs through the shm window) are
// not counted. No dstd: a plain program.
//
//   build/bin/write_tracking_floor
//
// It says whether the mechanism is there (a user-mode-only userfaultfd needs
// no privilege), then times, as medians of 21 runs: arming N in-use pages,
// one scan-and-rearm of N pages with none, 1 and 64 of them written, and a
// first and a second store to a page after arming. Then it checks what is
// tracked: a store, a read(2) into a page, a store through a second mapping,
// and a page inside the registered range that was never armed.
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "runtime/coherence/write_tracking_abi.hpp"

namespace {

using namespace dstd::rt::write_tracking_abi;

constexpr std::size_t page = 4096;
constexpr int repetitions = 21;

int pagemap = -1;

// The pages of [p, p + len) written since the last scan, as [first, last)
// page indexes from `base`; protects them again. -1 and errno on failure.
long scan_and_rearm(unsigned char* base, unsigned char* p, std::size_t len,
                    std::vector<std::pair<std::size_t, std::size_t>>* written) {
  page_region regions[256];
  scan_arg a{};
  a.size = sizeof a;
  a.flags = scan_wp_matching | scan_check_wpasync;
  a.start = reinterpret_cast<std::uintptr_t>(p);
  a.end = a.start + len;
  a.vec = reinterpret_cast<std::uintptr_t>(regions);
  a.vec_len = sizeof regions / sizeof regions[0];
  a.category_mask = page_is_written;
  a.return_mask = page_is_written;
  const long n = ioctl(pagemap, pagemap_scan, &a);
  if (written != nullptr) {
    const auto b = reinterpret_cast<std::uintptr_t>(base);
    for (long i = 0; i < n; ++i) {
      written->emplace_back((regions[i].start - b) / page, (regions[i].end - b) / page);
    }
  }
  return n;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double ns_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
}

void show(const std::vector<std::pair<std::size_t, std::size_t>>& w) {
  if (w.empty()) std::printf(" none");
  for (const auto& [first, last] : w) {
    std::printf(" %zu", first);
    if (last != first + 1) std::printf("-%zu", last - 1);
  }
  std::printf("\n");
}

void row(const char* what, double value, const char* unit) {
  std::printf("| %-52s | %10.2f %s |\n", what, value, unit);
}

}  // namespace

int main() {
  const int uffd = static_cast<int>(syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY));
  if (uffd < 0) {
    std::printf("userfaultfd: %s: not available here\n", std::strerror(errno));
    return 1;
  }
  uffdio_api api{};
  api.api = UFFD_API;
  api.features = feature_wp_async;
  if (ioctl(uffd, UFFDIO_API, &api) != 0) {
    std::printf("userfaultfd's asynchronous write-protect (Linux 6.7): %s: not available here\n",
                std::strerror(errno));
    return 1;
  }
  pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

  constexpr std::size_t registered = 1u << 18;  // 1 GiB of address space
  constexpr std::size_t sizes[] = {4096, 65536};
  const int fd = memfd_create("write_tracking_floor", 0);
  if (fd < 0 || ftruncate(fd, static_cast<off_t>(registered * page)) != 0) {
    std::perror("memfd");
    return 1;
  }
  auto* const home = static_cast<unsigned char*>(mmap(nullptr, registered * page,
      PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0));
  auto* const window = static_cast<unsigned char*>(mmap(nullptr, registered * page,
      PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0));
  if (home == MAP_FAILED || window == MAP_FAILED) {
    std::perror("mmap");
    return 1;
  }
  std::memset(home, 1, sizes[1] * page);  // in use: touched by the home
  uffdio_register reg{};
  reg.range = {reinterpret_cast<std::uintptr_t>(home), registered * page};
  reg.mode = UFFDIO_REGISTER_MODE_WP;
  if (ioctl(uffd, UFFDIO_REGISTER, &reg) != 0) {
    std::perror("UFFDIO_REGISTER");
    return 1;
  }

  std::printf("## Tracking a process's own writes: userfaultfd WP_ASYNC + PAGEMAP_SCAN, no dstd\n");
  std::printf("(medians of %d runs; the arming rows once)\n", repetitions);
  std::printf("| %-52s | %13s |\n|%s|%s|\n", "operation", "cost", std::string(54, '-').c_str(),
              std::string(15, '-').c_str());
  for (std::size_t n : sizes) {
    auto t0 = std::chrono::steady_clock::now();
    if (scan_and_rearm(home, home, n * page, nullptr) < 0) {
      std::printf("PAGEMAP_SCAN (Linux 6.7): %s: not available here\n", std::strerror(errno));
      return 1;
    }
    const double arm = ns_since(t0);
    std::vector<double> none, one, many;
    for (int r = 0; r < repetitions; ++r) {
      t0 = std::chrono::steady_clock::now();
      scan_and_rearm(home, home, n * page, nullptr);
      none.push_back(ns_since(t0));
      home[(n / 2) * page] = 2;
      t0 = std::chrono::steady_clock::now();
      scan_and_rearm(home, home, n * page, nullptr);
      one.push_back(ns_since(t0));
      for (std::size_t i = 0; i < 64; ++i) home[(i * (n / 64) + 1) * page] = 3;
      t0 = std::chrono::steady_clock::now();
      scan_and_rearm(home, home, n * page, nullptr);
      many.push_back(ns_since(t0));
    }
    char what[80];
    std::snprintf(what, sizeof what, "arm %zu in-use pages, per page", n);
    row(what, arm / double(n), "ns");
    const std::pair<const char*, const std::vector<double>*> scans[] = {
        {"none", &none}, {"1", &one}, {"64", &many}};
    for (const auto& [count, runs] : scans) {
      std::snprintf(what, sizeof what, "scan and rearm %zu in-use pages, %s written", n, count);
      row(what, median(*runs) / 1000, "µs");
    }
  }
  std::vector<double> first, second;
  constexpr std::size_t stores = 1000;
  for (int r = 0; r < repetitions; ++r) {
    scan_and_rearm(home, home, stores * page, nullptr);
    auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < stores; ++i) home[i * page] = 4;
    first.push_back(ns_since(t0) / stores);
    t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < stores; ++i) home[i * page] = 5;
    second.push_back(ns_since(t0) / stores);
  }
  row("first store to a page after arming (kernel's fault)", median(first), "ns");
  row("second store to it", median(second), "ns");

  // What is tracked. Pages 10, 20, 30 are in use and armed; page
  // sizes[1] + 100 is inside the registered range, never armed or touched.
  std::vector<std::pair<std::size_t, std::size_t>> written;
  scan_and_rearm(home, home, sizes[1] * page, nullptr);
  home[10 * page] = 6;
  const int in = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  const ssize_t got = read(in, home + 20 * page, 8);
  window[30 * page] = 7;
  scan_and_rearm(home, home, (sizes[1] + 101) * page, &written);
  std::printf("\nwritten: a store to page 10, read(2) into page 20 (%s), a store through a\n"
              "second mapping to page 30; page %zu never armed. Reported written:",
              got == 8 ? "returned 8" : std::strerror(errno), sizes[1] + 100);
  show(written);
  return 0;
}
