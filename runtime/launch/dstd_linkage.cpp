// Reading an ELF file's dynamic section and symbol tables; see dstd_linkage.hpp.
#include "runtime/launch/dstd_linkage.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string_view>

namespace dstd::launch {

namespace {

// A read-only view of the whole file; every access is checked against its size.
class elf_file {
 public:
  explicit elf_file(const std::string& path) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (fstat(fd, &st) == 0 && st.st_size >= static_cast<off_t>(sizeof(Elf64_Ehdr))) {
      void* p = mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
        data_ = static_cast<const unsigned char*>(p);
        size_ = static_cast<std::size_t>(st.st_size);
      }
    }
    close(fd);
  }
  ~elf_file() {
    if (data_ != nullptr) munmap(const_cast<unsigned char*>(data_), size_);
  }
  elf_file(const elf_file&) = delete;
  elf_file& operator=(const elf_file&) = delete;

  // A 64-bit little-endian ELF for this machine.
  bool usable() const {
    const Elf64_Ehdr* h = header();
    return h != nullptr && std::memcmp(h->e_ident, ELFMAG, SELFMAG) == 0 &&
           h->e_ident[EI_CLASS] == ELFCLASS64 && h->e_ident[EI_DATA] == ELFDATA2LSB &&
           h->e_machine == EM_X86_64;
  }
  const Elf64_Ehdr* header() const { return data_ == nullptr ? nullptr : at<Elf64_Ehdr>(0, 1); }

  // `count` objects of type T at file offset `off`, or nullptr if outside.
  template <class T>
  const T* at(std::uint64_t off, std::uint64_t count) const {
    if (off > size_ || count > (size_ - off) / sizeof(T)) return nullptr;
    return reinterpret_cast<const T*>(data_ + off);
  }
  // The NUL-terminated string at `off`, or "" if it runs off the file.
  std::string_view string(std::uint64_t off) const {
    if (off >= size_) return {};
    const void* end = std::memchr(data_ + off, '\0', size_ - off);
    if (end == nullptr) return {};
    return {reinterpret_cast<const char*>(data_ + off),
            static_cast<std::size_t>(static_cast<const unsigned char*>(end) - (data_ + off))};
  }

 private:
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
};

// The file offset of virtual address `addr`, through the PT_LOAD segments.
bool file_offset(const Elf64_Phdr* ph, unsigned n, std::uint64_t addr, std::uint64_t& off) {
  for (unsigned i = 0; i < n; ++i) {
    if (ph[i].p_type == PT_LOAD && addr >= ph[i].p_vaddr &&
        addr - ph[i].p_vaddr < ph[i].p_filesz) {
      off = ph[i].p_offset + (addr - ph[i].p_vaddr);
      return true;
    }
  }
  return false;
}

// Some DT_NEEDED entry is libdstd.so (or a version of it), or
// libdstd_internal.so, the same runtime that the project's tests link.
bool needs_libdstd(const elf_file& f) {
  const Elf64_Ehdr* h = f.header();
  const Elf64_Phdr* ph = f.at<Elf64_Phdr>(h->e_phoff, h->e_phnum);
  if (ph == nullptr) return false;
  for (unsigned i = 0; i < h->e_phnum; ++i) {
    if (ph[i].p_type != PT_DYNAMIC) continue;
    const Elf64_Dyn* dyn = f.at<Elf64_Dyn>(ph[i].p_offset, ph[i].p_filesz / sizeof(Elf64_Dyn));
    if (dyn == nullptr) return false;
    const std::uint64_t count = ph[i].p_filesz / sizeof(Elf64_Dyn);
    std::uint64_t strtab = 0;
    for (std::uint64_t k = 0; k < count && dyn[k].d_tag != DT_NULL; ++k)
      if (dyn[k].d_tag == DT_STRTAB && !file_offset(ph, h->e_phnum, dyn[k].d_un.d_ptr, strtab))
        return false;
    for (std::uint64_t k = 0; k < count && dyn[k].d_tag != DT_NULL; ++k) {
      if (dyn[k].d_tag != DT_NEEDED) continue;
      const std::string_view name = f.string(strtab + dyn[k].d_un.d_val);
      if (name == "libdstd.so" || name.starts_with("libdstd.so.") ||
          name == "libdstd_internal.so")
        return true;
    }
  }
  return false;
}

// A symbol table defines something of the runtime (namespace dstd::rt):
// libdstd.a was linked in. A stripped program has no .symtab; its .dynsym
// is searched too, which holds the runtime's symbols only when exported.
bool defines_runtime(const elf_file& f) {
  const Elf64_Ehdr* h = f.header();
  const Elf64_Shdr* sh = f.at<Elf64_Shdr>(h->e_shoff, h->e_shnum);
  if (sh == nullptr) return false;
  for (unsigned i = 0; i < h->e_shnum; ++i) {
    if (sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM) continue;
    if (sh[i].sh_link >= h->e_shnum) continue;
    const std::uint64_t names = sh[sh[i].sh_link].sh_offset;
    const std::uint64_t count = sh[i].sh_size / sizeof(Elf64_Sym);
    const Elf64_Sym* sym = f.at<Elf64_Sym>(sh[i].sh_offset, count);
    if (sym == nullptr) continue;
    for (std::uint64_t k = 0; k < count; ++k) {
      if (sym[k].st_shndx == SHN_UNDEF) continue;
      if (f.string(names + sym[k].st_name).starts_with("_ZN4dstd2rt")) return true;
    }
  }
  return false;
}

}  // namespace

dstd_linkage find_dstd_linkage(const std::string& path) {
  const elf_file f(path);
  if (!f.usable()) return dstd_linkage::unknown;
  if (needs_libdstd(f)) return dstd_linkage::shared;
  if (defines_runtime(f)) return dstd_linkage::static_lib;
  return dstd_linkage::none;
}

}  // namespace dstd::launch
