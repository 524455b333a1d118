// See address_space.hpp.
#include "runtime/heap/address_space.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "runtime/common/fatal.hpp"
#include "runtime/common/page_size.hpp"
#include "runtime/heap/static_region.hpp"

namespace dstd::rt {

namespace {

address_space space;
std::atomic<bool> connected{false};
home_memory backing;  // from the transport backend
std::atomic<bool> mapped{false};
std::mutex map_lock;  // constant-initialized: usable before any constructor

int cache_fd = -1;

void map_fixed_new(std::uintptr_t at, std::size_t len, int prot, int fd, const char* what) {
  void* want = reinterpret_cast<void*>(at);
  void* p = mmap(want, len, prot, MAP_SHARED | MAP_NORESERVE | MAP_FIXED_NOREPLACE, fd, 0);
  if (p != want) {
    fatal("cannot map the %s at %p-%#lx: %s", what, want, static_cast<unsigned long>(at + len),
          p == MAP_FAILED ? std::strerror(errno) : "the range is already in use");
  }
}

// The whole global range becomes inaccessible cache frames (the home
// partition is mapped over its part next), plus their read-write alias.
void map_cache_frames(const address_space& s) {
  cache_fd = memfd_create("dstd-cache-frames", MFD_CLOEXEC);
  if (cache_fd < 0 || ftruncate(cache_fd, static_cast<off_t>(s.backing_bytes())) != 0) {
    fatal("cannot create the cache frame memory: %s", std::strerror(errno));
  }
  map_fixed_new(layout::global_base, s.partitions_end() - layout::global_base, PROT_NONE, cache_fd,
                "global address range");
  map_fixed_new(layout::cache_alias_base, s.backing_bytes(), PROT_READ | PROT_WRITE, cache_fd,
                "cache frame alias");
}

// The backend says which memory makes the home partition reachable by peers
// (runtime/transport/backend.hpp); it is mapped shared at its global address.
void map_home_partition(const address_space& s, const launch_info& launch) {
  backing = home_memory_for(launch);
  void* at = reinterpret_cast<void*>(s.partition_base(s.self));
  void* p = mmap(at, s.partition_bytes, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_FIXED | MAP_NORESERVE, backing.fd,
                 static_cast<off_t>(backing.partition_offset));
  if (p != at) fatal("cannot map the home partition at %p: %s", at, std::strerror(errno));
}

}  // namespace

bool address_space::backing_offset(std::uintptr_t a, std::size_t len,
                                   std::uint64_t& offset) const {
  if (in_partitions(a) && len <= partitions_end() - a) {
    offset = a - layout::global_base;
    return true;
  }
  if (in_static_region(a) && len <= static_end - a) {
    offset = nodes * partition_bytes + (a - static_begin);
    return true;
  }
  return false;
}

const address_space& ensure_address_space() {
  if (mapped.load(std::memory_order_acquire)) return space;
  std::lock_guard<std::mutex> lock(map_lock);
  if (mapped.load(std::memory_order_relaxed)) return space;
  const launch_info& launch = current_launch();
  set_log_node(launch.self, launch.nodes);
  check_system_page_size();
  address_space s;
  s.self = launch.self;
  s.nodes = launch.nodes;
  s.partition_bytes = launch.partition_bytes;
  map_cache_frames(s);
  map_home_partition(s, launch);
  space = s;
  mapped.store(true, std::memory_order_release);
  return space;
}

location locate(const void* p) noexcept {
  // Hot: every atomic operation asks. Memory homed here (the common case)
  // is answered first without a division, and each answer is built whole
  // (a location filled field by field and read back as one went through a
  // store-forwarding stall that doubled a local atomic's cost).
  const address_space& s = ensure_address_space();
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const std::uint64_t offset = a - layout::global_base;
  if (a - s.partition_base(s.self) < s.partition_bytes) return {s.self, true, true, offset};
  const bool apart = !connected.load(std::memory_order_acquire);
  if (s.in_partitions(a)) {
    const auto home = static_cast<node_id>(offset / s.partition_bytes);
    return {home, true, apart, offset};
  }
  if (s.in_static_region(a)) {
    return {0, true, s.self == 0 || apart,
            s.nodes * s.partition_bytes + (a - s.static_begin)};
  }
  return {s.self, false, true, 0};
}

std::atomic<bool> peers_share_memory{false};

void set_connected(bool c) noexcept {
  connected.store(c, std::memory_order_release);
  peers_share_memory.store(c && space.nodes > 1, std::memory_order_release);
}

namespace {

// Replaces [at, at+len) with a private copy of its current bytes.
void replace_with_private_copy(std::uintptr_t at, std::size_t len) {
  if (len == 0) return;
  void* copy = mmap(nullptr, len, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (copy == MAP_FAILED) fatal("forked child: no memory to copy its heap: %s", std::strerror(errno));
  // Stack guard pages are inaccessible; this changes only the child's view.
  mprotect(reinterpret_cast<void*>(at), len, PROT_READ);
  std::memcpy(copy, reinterpret_cast<void*>(at), len);
  // The system call itself: a library the runtime loads may hook mremap
  // without its fifth argument (UCX's libucm does), which would move the
  // copy to address 0.
  if (reinterpret_cast<void*>(syscall(SYS_mremap, copy, len, len, MREMAP_MAYMOVE | MREMAP_FIXED,
                                      reinterpret_cast<void*>(at))) == MAP_FAILED) {
    fatal("forked child: cannot move its heap copy in place: %s", std::strerror(errno));
  }
}

// Replaces [at, at+len) with fresh private zero pages.
void replace_with_private_zeros(std::uintptr_t at, std::size_t len) {
  if (len == 0) return;
  void* p = reinterpret_cast<void*>(at);
  if (mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
           -1, 0) != p) {
    fatal("forked child: cannot map private memory: %s", std::strerror(errno));
  }
}

void replace_with_inaccessible(std::uintptr_t at, std::size_t len) {
  void* p = reinterpret_cast<void*>(at);
  if (mmap(p, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) !=
      p) {
    fatal("forked child: cannot drop its cache frames: %s", std::strerror(errno));
  }
}

}  // namespace

void privatize_global_memory(std::uint64_t heap_used, std::uint64_t groups_used,
                             std::uint64_t stacks_used) {
  if (!mapped.load(std::memory_order_acquire)) return;
  const std::uintptr_t base = space.partition_base(space.self);
  const std::uintptr_t top = base + space.partition_bytes;
  for (node_id n = 0; n < space.nodes; ++n) {
    if (n != space.self) replace_with_inaccessible(space.partition_base(n), space.partition_bytes);
  }
  replace_with_inaccessible(layout::cache_alias_base, space.backing_bytes());
  const std::uintptr_t groups = base + layout::group_area_begin(space.partition_bytes);
  replace_with_private_copy(base, heap_used);
  replace_with_private_zeros(base + heap_used, groups - (base + heap_used));
  replace_with_private_copy(groups, groups_used);
  replace_with_private_zeros(groups + groups_used, top - stacks_used - (groups + groups_used));
  replace_with_private_copy(top - stacks_used, stacks_used);
  if (space.self == 0) {
    replace_with_private_copy(space.static_begin, space.static_end - space.static_begin);
  }
}

int cache_frames_fd() {
  ensure_address_space();
  return cache_fd;
}

std::vector<memory_region> global_regions() {
  const address_space& s = ensure_address_space();
  std::vector<memory_region> regions;
  for (node_id n = 0; n < s.nodes; ++n) {
    regions.push_back({s.partition_base(n), s.partition_base(n + 1), n,
                       s.partition_base(n) - layout::global_base});
  }
  if (s.static_begin != s.static_end) {
    std::uint64_t offset = 0;
    s.backing_offset(s.static_begin, s.static_end - s.static_begin, offset);
    regions.push_back({s.static_begin, s.static_end, 0, offset});
  }
  return regions;
}

void share_static_region() {
  ensure_address_space();
  std::uintptr_t begin = 0, end = 0;
  find_static_region(begin, end);
  if (end - begin > layout::static_region_max) {
    fatal("the program's static data (%lu bytes) exceeds the %llu bytes dstd can share",
          static_cast<unsigned long>(end - begin),
          static_cast<unsigned long long>(layout::static_region_max));
  }
  space.static_begin = begin;
  space.static_end = end;
  if (space.self != 0 || begin == end) return;
  move_static_region_to(backing.fd, backing.static_offset, begin, end);
}

}  // namespace dstd::rt
