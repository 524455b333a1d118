// What the kernel alone charges for a page fault that dstd resolves: a
// SIGSEGV on a PROT_NONE page, a handler that copies 4 KiB into the page
// through a second mapping (as a fetch fills a cache frame through its
// alias) and makes it readable with mprotect, and the return from the
// handler. No dstd: a plain program, so that coherence_bench's read-fault
// row can be read against the floor of the same machine.
//
//   build/bin/fault_floor
//
// Rows: 4096 pages of one shared mapping touched last to first (the access
// pattern of coherence_bench's read-fault row; each mprotect splits or
// merges the mapping's areas), and one page made inaccessible and touched
// again and again (the smallest case: no neighbours to merge with). Then
// the price of one mprotect of one page (read-only, then read-write again,
// as a flush or a refresh does), with this process's only thread, and with
// a second thread of it running on another CPU: there the kernel must
// shoot down that CPU's TLB entry too (an IPI, dear on some VMs; the
// difference between the two rows is that price).
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr std::size_t page = 4096;
constexpr std::size_t pages = 4096;
constexpr int repetitions = 21;

unsigned char* frames = nullptr;  // PROT_NONE until faulted
unsigned char* alias = nullptr;   // the same memory, always writable
unsigned char source[page];

void fill_and_map(int, siginfo_t* info, void*) {
  const auto a = reinterpret_cast<std::uintptr_t>(info->si_addr) & ~(page - 1);
  std::memcpy(alias + (a - reinterpret_cast<std::uintptr_t>(frames)), source, page);
  if (mprotect(reinterpret_cast<void*>(a), page, PROT_READ) != 0) std::abort();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double ns_per(std::chrono::steady_clock::time_point t0, std::size_t n) {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() /
         double(n);
}

// Median ns per mprotect of `p`, toggled read-only / read-write.
double mprotect_cost(unsigned char* p) {
  std::vector<double> runs;
  constexpr std::size_t calls = 2000;
  for (int r = 0; r < repetitions; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < calls / 2; ++i) {
      mprotect(p, page, PROT_READ);
      mprotect(p, page, PROT_READ | PROT_WRITE);
    }
    runs.push_back(ns_per(t0, calls));
  }
  return median(runs);
}

std::atomic<bool> stop_spinning{false};
void* spin_on(void* p) {
  while (!stop_spinning.load(std::memory_order_relaxed)) {
    asm volatile("" : : "r"(*static_cast<volatile unsigned char*>(p)) : "memory");
  }
  return nullptr;
}

}  // namespace

int main() {
  const int fd = memfd_create("fault_floor", 0);
  if (fd < 0 || ftruncate(fd, pages * page) != 0) {
    std::perror("memfd");
    return 1;
  }
  frames = static_cast<unsigned char*>(mmap(nullptr, pages * page, PROT_NONE, MAP_SHARED, fd, 0));
  alias = static_cast<unsigned char*>(
      mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  if (frames == MAP_FAILED || alias == MAP_FAILED) {
    std::perror("mmap");
    return 1;
  }
  std::memset(alias, 1, pages * page);
  std::memset(source, 2, page);
  struct sigaction sa {};
  sa.sa_sigaction = fill_and_map;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, nullptr);

  std::vector<double> backwards, one_page;
  for (int r = 0; r < repetitions; ++r) {
    mprotect(frames, pages * page, PROT_NONE);
    const auto t0 = std::chrono::steady_clock::now();
    unsigned sum = 0;
    for (std::size_t p = pages; p-- > 0;) sum += frames[p * page];
    backwards.push_back(ns_per(t0, pages));
    asm volatile("" : : "r"(sum) : "memory");
  }
  unsigned char* const one = frames + page * (pages / 2);
  for (int r = 0; r < repetitions; ++r) {
    double total = 0;
    for (std::size_t i = 0; i < pages; ++i) {
      mprotect(one, page, PROT_NONE);
      const auto t0 = std::chrono::steady_clock::now();
      asm volatile("" : : "r"(*static_cast<volatile unsigned char*>(one)) : "memory");
      total += ns_per(t0, 1);
    }
    one_page.push_back(total / double(pages));
  }
  std::printf("## SIGSEGV + 4 KiB copy + mprotect, no dstd (median of %d runs)\n", repetitions);
  std::printf("| %-44s | %10s |\n|%s|%s|\n", "fault", "median ns", std::string(46, '-').c_str(),
              std::string(12, '-').c_str());
  std::printf("| %-44s | %10.1f |\n", "4096 pages, last to first", median(backwards));
  std::printf("| %-44s | %10.1f |\n", "one page, again and again", median(one_page));

  unsigned char* const toggled = alias + page;
  const double alone = mprotect_cost(toggled);
  pthread_t spinner;
  if (pthread_create(&spinner, nullptr, spin_on, alias) != 0) return 1;
  const double beside = mprotect_cost(toggled);
  stop_spinning = true;
  pthread_join(spinner, nullptr);
  std::printf("\n## mprotect of one page, no dstd (median of %d runs)\n", repetitions);
  std::printf("| %-44s | %10s |\n|%s|%s|\n", "mprotect", "median ns", std::string(46, '-').c_str(),
              std::string(12, '-').c_str());
  std::printf("| %-44s | %10.1f |\n", "the process's only thread", alone);
  std::printf("| %-44s | %10.1f |\n", "a second thread running on another CPU", beside);
  return 0;
}
