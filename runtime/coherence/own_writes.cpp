// See own_writes.hpp.
#include "runtime/coherence/own_writes.hpp"

#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

#include "runtime/coherence/write_tracking_abi.hpp"
#include "runtime/common/layout.hpp"
#include "runtime/common/settings.hpp"
#include "runtime/heap/address_space.hpp"
#include "runtime/heap/group_heap.hpp"
#include "runtime/heap/partition.hpp"

namespace dstd::rt::coherence::own_writes {

namespace {

namespace abi = write_tracking_abi;

const address_space* space = nullptr;
int pagemap = -1;
std::atomic<bool> tracking{false};

bool register_range(int uffd, std::uintptr_t begin, std::uintptr_t end) {
  if (begin == end) return true;
  uffdio_register r{};
  r.range = {begin, end - begin};
  r.mode = UFFDIO_REGISTER_MODE_WP;
  return ioctl(uffd, UFFDIO_REGISTER, &r) == 0;
}

// Reports and protects again the written pages of [begin, end).
bool scan_range(std::uintptr_t begin, std::uintptr_t end, void (*each)(std::uintptr_t, void*),
                void* ctx) {
  static abi::page_region regions[256];  // one scan at a time (own_writes.hpp)
  for (std::uintptr_t at = begin; at < end;) {
    abi::scan_arg a{};
    a.size = sizeof a;
    a.flags = abi::scan_wp_matching | abi::scan_check_wpasync;
    a.start = at;
    a.end = end;
    a.vec = reinterpret_cast<std::uintptr_t>(regions);
    a.vec_len = sizeof regions / sizeof regions[0];
    a.category_mask = abi::page_is_written;
    a.return_mask = abi::page_is_written;
    const long n = ioctl(pagemap, abi::pagemap_scan, &a);
    if (n < 0) return false;
    for (long i = 0; i < n; ++i) {
      for (std::uintptr_t p = regions[i].start; p < regions[i].end; p += layout::page_bytes) {
        each(p, ctx);
      }
    }
    if (a.walk_end <= at) return false;  // no progress: never expected
    at = a.walk_end;
  }
  return true;
}

}  // namespace

bool start(const address_space& s) {
  if (!current_settings().track_home_writes) return false;
  const int uffd = static_cast<int>(syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY));
  if (uffd < 0) return false;
  uffdio_api api{};
  api.api = UFFD_API;
  api.features = abi::feature_wp_async;
  const std::uintptr_t base = s.partition_base(s.self);
  if (ioctl(uffd, UFFDIO_API, &api) != 0 ||
      !register_range(uffd, base, base + s.partition_bytes) ||
      (s.self == 0 && !register_range(uffd, s.static_begin, s.static_end))) {
    close(uffd);  // closing it unregisters every range
    return false;
  }
  // The userfaultfd stays open: closing it would end the tracking.
  pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (pagemap < 0) {
    close(uffd);
    return false;
  }
  space = &s;
  tracking.store(true, std::memory_order_release);
  return true;
}

bool on() { return tracking.load(std::memory_order_acquire); }

// The ranges in use: the heap, the tbox groups, the stacks (fibers' locals
// are global addresses), and at node 0 the static data. The page versions
// between them are written by appliers and read only one-sidedly.
bool scan(void (*each)(std::uintptr_t page, void* ctx), void* ctx) {
  if (!on()) return false;
  const std::uintptr_t base = space->partition_base(space->self);
  const std::uint64_t p = space->partition_bytes;
  const std::uintptr_t groups = base + layout::group_area_begin(p);
  const bool ok = scan_range(base, base + partition_allocated_bytes(), each, ctx) &&
                  scan_range(groups, groups + group_area_used_bytes(), each, ctx) &&
                  scan_range(base + p - stack_area_used_bytes(), base + p, each, ctx) &&
                  (space->self != 0 || scan_range(space->static_begin, space->static_end, each, ctx));
  if (!ok) tracking.store(false, std::memory_order_release);
  return ok;
}

}  // namespace dstd::rt::coherence::own_writes
