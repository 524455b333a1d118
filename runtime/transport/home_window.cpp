// See home_window.hpp.
#include "runtime/transport/home_window.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/common/fatal.hpp"

namespace dstd::rt::home_window {

namespace {
int home_fd = -1;  // made by create() at the first malloc
}  // namespace

home_memory create(const launch_info& launch, const char* backend) {
  home_fd = memfd_create("dstd-home", MFD_CLOEXEC);
  if (home_fd < 0 ||
      ftruncate(home_fd, static_cast<off_t>(launch.partition_bytes + layout::static_region_max)) != 0) {
    fatal("cannot create this node's home memory for the %s transport: %s", backend,
          std::strerror(errno));
  }
  return {home_fd, 0, launch.partition_bytes};
}

void map(const launch_info& launch, std::span<const memory_region> regions, const char* backend) {
  if (home_fd < 0) fatal("the %s transport was made before its home memory", backend);
  for (const memory_region& r : regions) {
    if (r.home != launch.self) continue;
    const bool is_partition = r.begin == layout::partition_base(launch.self, launch.partition_bytes);
    const std::uint64_t fd_offset = is_partition ? 0 : launch.partition_bytes;
    void* at = of(r, r.begin);
    const std::size_t bytes = r.end - r.begin;
    void* p = mmap(at, bytes, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE, home_fd,
                   static_cast<off_t>(fd_offset));
    if (p == MAP_FAILED || p != at) {
      fatal("cannot map the %s window onto home memory (%zu bytes at %p): %s", backend, bytes, at,
            std::strerror(errno));
    }
  }
}

}  // namespace dstd::rt::home_window
