// See static_region.hpp.
#include "runtime/heap/static_region.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/common/fatal.hpp"
#include "runtime/common/layout.hpp"
#include "runtime/heap/program_headers.hpp"

namespace dstd::rt {

namespace {

constexpr std::uintptr_t page_up(std::uintptr_t a) {
  return (a + layout::page_bytes - 1) & ~(layout::page_bytes - 1);
}

}  // namespace

void find_static_region(std::uintptr_t& begin, std::uintptr_t& end) {
  std::uintptr_t data_begin = 0, data_end = 0, relro_end = 0;
  const program_headers headers = main_program_headers();
  for (const ElfW(Phdr)& ph : headers) {
    const std::uintptr_t lo = headers.address_of(ph);
    const std::uintptr_t hi = lo + ph.p_memsz;
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_W) && data_begin == 0) {
      data_begin = lo;
      data_end = hi;
    } else if (ph.p_type == PT_GNU_RELRO) {
      relro_end = hi;
    }
  }
  std::uintptr_t lo = page_up(relro_end > data_begin ? relro_end : data_begin);
  std::uintptr_t hi = page_up(data_end);
  if (data_end == 0 || lo >= hi) lo = hi = 0;
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
