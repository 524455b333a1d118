// See static_exclusions.hpp. Reads the dynamic section and relocations from
// /proc/self/exe on disk rather than from memory, where the loader may have
// rewritten them; the program headers, which it does not touch, come from
// the one reader (program_headers.hpp).
#include "runtime/heap/static_exclusions.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "runtime/common/fatal.hpp"
#include "runtime/heap/program_headers.hpp"

namespace dstd::rt {

namespace {

// The executable's file bytes, addressed by link-time virtual address.
class elf_image {
 public:
  explicit elf_image(const program_headers& headers) : headers_(headers) {
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || fstat(fd, &st) != 0) fatal("cannot read the program's own executable");
    size_ = static_cast<std::size_t>(st.st_size);
    void* p = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) fatal("cannot map the program's own executable");
    base_ = static_cast<const unsigned char*>(p);
  }
  ~elf_image() { munmap(const_cast<unsigned char*>(base_), size_); }
  elf_image(const elf_image&) = delete;
  elf_image& operator=(const elf_image&) = delete;

  // File bytes at a link-time virtual address, or nullptr.
  const unsigned char* at_vaddr(std::uint64_t vaddr, std::uint64_t len) const {
    for (const Elf64_Phdr& ph : headers_) {
      if (ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr && vaddr + len <= ph.p_vaddr + ph.p_filesz &&
          ph.p_offset + (vaddr - ph.p_vaddr) + len <= size_) {
        return base_ + ph.p_offset + (vaddr - ph.p_vaddr);
      }
    }
    return nullptr;
  }

 private:
  program_headers headers_;
  const unsigned char* base_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace

std::vector<byte_range> per_node_static_ranges(std::uintptr_t begin, std::uintptr_t end) {
  std::vector<byte_range> ranges;
  if (begin == end) return ranges;
  const program_headers headers = main_program_headers();
  const elf_image elf(headers);
  const std::uintptr_t bias = headers.load_bias;
  const Elf64_Dyn* dyn = nullptr;
  std::uint64_t dyn_count = 0;
  for (const Elf64_Phdr& ph : headers) {
    if (ph.p_type == PT_DYNAMIC) {
      dyn = reinterpret_cast<const Elf64_Dyn*>(elf.at_vaddr(ph.p_vaddr, ph.p_filesz));
      dyn_count = ph.p_filesz / sizeof(Elf64_Dyn);
    }
  }
  if (dyn == nullptr) return ranges;  // a static executable: nothing per node
  std::uint64_t rela = 0, rela_size = 0, jmprel = 0, jmprel_size = 0, symtab = 0, pltgot = 0;
  for (std::uint64_t i = 0; i < dyn_count && dyn[i].d_tag != DT_NULL; ++i) {
    switch (dyn[i].d_tag) {
      case DT_RELA: rela = dyn[i].d_un.d_ptr; break;
      case DT_RELASZ: rela_size = dyn[i].d_un.d_val; break;
      case DT_JMPREL: jmprel = dyn[i].d_un.d_ptr; break;
      case DT_PLTRELSZ: jmprel_size = dyn[i].d_un.d_val; break;
      case DT_SYMTAB: symtab = dyn[i].d_un.d_ptr; break;
      case DT_PLTGOT: pltgot = dyn[i].d_un.d_ptr; break;
      default: break;
    }
  }
  auto add = [&](std::uint64_t vaddr, std::uint64_t len) {
    std::uintptr_t lo = std::max<std::uintptr_t>(bias + vaddr, begin);
    std::uintptr_t hi = std::min<std::uintptr_t>(bias + vaddr + len, end);
    if (lo < hi) ranges.push_back({lo, hi});
  };
  auto scan = [&](std::uint64_t table, std::uint64_t bytes) {
    const auto* r = reinterpret_cast<const Elf64_Rela*>(elf.at_vaddr(table, bytes));
    if (r == nullptr) return;
    for (std::uint64_t i = 0; i < bytes / sizeof(Elf64_Rela); ++i) {
      const auto type = ELF64_R_TYPE(r[i].r_info);
      if (type == R_X86_64_JUMP_SLOT) {
        add(r[i].r_offset, 8);
      } else if (type == R_X86_64_COPY) {
        const std::uint64_t sym = ELF64_R_SYM(r[i].r_info);
        const auto* s = reinterpret_cast<const Elf64_Sym*>(
            elf.at_vaddr(symtab + sym * sizeof(Elf64_Sym), sizeof(Elf64_Sym)));
        if (s != nullptr) add(r[i].r_offset, s->st_size);
      }
    }
  };
  scan(rela, rela_size);
  scan(jmprel, jmprel_size);
  if (pltgot != 0) add(pltgot, 3 * 8);
  std::sort(ranges.begin(), ranges.end(),
            [](const byte_range& a, const byte_range& b) { return a.begin < b.begin; });
  std::vector<byte_range> merged;
  for (const byte_range& r : ranges) {
    if (!merged.empty() && r.begin <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, r.end);
    } else {
      merged.push_back(r);
    }
  }
  return merged;
}

}  // namespace dstd::rt
