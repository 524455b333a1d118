// See static_region.hpp.
#include "runtime/heap/static_region.hpp"

#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/common/fatal.hpp"

namespace dstd::rt {

namespace {

constexpr std::uintptr_t page = 4096;
constexpr std::uintptr_t page_up(std::uintptr_t a) { return (a + page - 1) & ~(page - 1); }

struct bounds {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  std::uintptr_t relro_end = 0;
};

// The first object dl_iterate_phdr reports is the main executable.
int read_main_object(dl_phdr_info* info, std::size_t, void* data) {
  auto* b = static_cast<bounds*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const std::uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
    const std::uintptr_t hi = lo + ph.p_memsz;
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_W) && b->begin == 0) {
      b->begin = lo;
      b->end = hi;
    } else if (ph.p_type == PT_GNU_RELRO) {
      b->relro_end = hi;
    }
  }
  return 1;
}

}  // namespace

void find_static_region(std::uintptr_t& begin, std::uintptr_t& end) {
  bounds b;
  dl_iterate_phdr(read_main_object, &b);
  std::uintptr_t lo = page_up(b.relro_end > b.begin ? b.relro_end : b.begin);
  std::uintptr_t hi = page_up(b.end);
  if (b.end == 0 || lo >= hi) lo = hi = 0;
  begin = lo;
  end = hi;
}

void move_static_region_to(int fd, std::uint64_t offset, std::uintptr_t begin,
                           std::uintptr_t end) {
  const auto* bytes = reinterpret_cast<const char*>(begin);
  const std::size_t len = end - begin;
  for (std::size_t done = 0; done < len;) {
    ssize_t n = pwrite(fd, bytes + done, len - done, static_cast<off_t>(offset + done));
    if (n <= 0) fatal("cannot copy the program's static data: %s", std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  void* at = reinterpret_cast<void*>(begin);
  if (mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
           static_cast<off_t>(offset)) != at) {
    fatal("cannot map the program's static data onto shared memory: %s", std::strerror(errno));
  }
}

}  // namespace dstd::rt
