// See identity.hpp.
#include "runtime/control/identity.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "runtime/common/fatal.hpp"
#include "runtime/common/kernel_sleep.hpp"
#include "runtime/heap/program_headers.hpp"
#include "runtime/transport/launch_info.hpp"

namespace dstd::rt {

namespace {

// The executable's load address and GNU build id.
void read_main_object(join_record* rec) {
  const program_headers headers = main_program_headers();
  rec->exe_load_address = headers.load_bias;
  for (const ElfW(Phdr)& ph : headers) {
    if (ph.p_type != PT_NOTE) continue;
    auto* p = reinterpret_cast<const unsigned char*>(headers.address_of(ph));
    const unsigned char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      auto* note = reinterpret_cast<const ElfW(Nhdr)*>(p);
      const unsigned char* name = p + sizeof(ElfW(Nhdr));
      const unsigned char* desc = name + ((note->n_namesz + 3) & ~3u);
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0 && note->n_descsz <= sizeof rec->build_id) {
        rec->build_id_len = note->n_descsz;
        std::memcpy(rec->build_id, desc, note->n_descsz);
        return;
      }
      p = desc + ((note->n_descsz + 3) & ~3u);
    }
  }
}

std::string hex(const std::uint8_t* bytes, std::uint32_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  for (std::uint32_t i = 0; i < n; ++i) {
    s += digits[bytes[i] >> 4];
    s += digits[bytes[i] & 15];
  }
  return s.empty() ? "none" : s;
}

bool same_binary(const join_record& a, const join_record& b) {
  if (a.build_id_len != 0 || b.build_id_len != 0) {
    return a.build_id_len == b.build_id_len &&
           std::memcmp(a.build_id, b.build_id, a.build_id_len) == 0;
  }
  return a.exe_size == b.exe_size && a.exe_mtime_ns == b.exe_mtime_ns;
}

}  // namespace

join_record describe_this_node(node_id self) {
  join_record rec{};
  rec.node = self;
  rec.pid = static_cast<std::uint32_t>(getpid());
  read_main_object(&rec);
  struct stat st {};
  if (stat("/proc/self/exe", &st) == 0) {
    rec.exe_size = static_cast<std::uint64_t>(st.st_size);
    rec.exe_mtime_ns = static_cast<std::uint64_t>(st.st_mtim.tv_sec) * 1000000000u +
                       static_cast<std::uint64_t>(st.st_mtim.tv_nsec);
  }
  std::memcpy(rec.host, current_launch().host, sizeof rec.host);
  ssize_t n = readlink("/proc/self/exe", rec.exe_path, sizeof rec.exe_path - 1);
  rec.exe_path[n > 0 ? n : 0] = '\0';
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&describe_this_node), &info) != 0) {
    rec.runtime_address = reinterpret_cast<std::uintptr_t>(info.dli_fbase);
  }
  return rec;
}

void check_same_program(const std::vector<join_record>& all, node_id self) {
  const join_record& first = all[0];
  bool ok = true;
  bool explained = false;  // this node is the odd one and said so
  for (const join_record& r : all) {
    const char* what = nullptr;
    if (!same_binary(r, first)) {
      what = "runs a different binary";
    } else if (r.exe_load_address != first.exe_load_address ||
               r.runtime_address != first.runtime_address) {
      what = "has the program or libdstd loaded at a different address (is address-space "
             "randomization off? start nodes only with dstdrun)";
    }
    if (what == nullptr) continue;
    ok = false;
    if (r.node == self) {
      explained = true;
      warn("this node (pid %u on host %.64s) %s than node 0 (on host %.64s): node 0 runs %s "
           "(build-id %s, loaded at %#lx), this node runs %s (build-id %s, loaded at %#lx)",
           r.pid, r.host, what, first.host, first.exe_path,
           hex(first.build_id, first.build_id_len).c_str(),
           static_cast<unsigned long>(first.exe_load_address), r.exe_path,
           hex(r.build_id, r.build_id_len).c_str(),
           static_cast<unsigned long>(r.exe_load_address));
    }
  }
  if (ok) return;
  // The odd node explains itself (above). The others give it a second to:
  // over a network transport, a node whose peer has exited may fail to
  // connect to it and never get here.
  if (!explained) kernel_sleep_ns(1'000'000'000);
  fatal("every node must run the same program; stopping");
}

}  // namespace dstd::rt
