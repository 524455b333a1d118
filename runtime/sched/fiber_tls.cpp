// See fiber_tls.hpp. The glibc facts used here (x86-64, glibc 2.36):
// - the thread pointer (%fs base) points at the thread's struct pthread,
//   which starts with tcbhead_t: +0 the thread pointer itself, +8 the dtv,
//   +0x10 `self` (the struct pthread), +0x28 and +0x30 the stack and pointer
//   guards; glibc reads any field as %fs:offset, so a copy of the whole
//   struct is what a fiber's %fs points at;
// - the thread id's offset in struct pthread is libc's
//   _thread_db_pthread_tid[2] (a libthread_db field descriptor: bits,
//   count, offset); mutexes read it as THREAD_GETMEM(tid), from the copy;
// - each module loaded at start-up has its TLS block at a fixed offset below
//   the thread pointer; the static TLS size (blocks, surplus and struct
//   pthread) and alignment come from ld.so's _dl_get_tls_static_info, the
//   size of struct pthread from libc's _thread_db_sizeof_pthread (both
//   GLIBC_PRIVATE; the sanitizers read them the same way);
// - dtv[-1] holds the number of slots, dtv[0] the TLS generation, dtv[m]
//   module m's block (or -1: not allocated yet, which __tls_get_addr then
//   allocates for this thread); glibc may realloc the dtv from &dtv[-1];
// - a new thread's start also points its ctype tables at the locale's
//   (__ctype_init).
#include "runtime/sched/fiber_tls.hpp"

#include <asm/prctl.h>
#include <dlfcn.h>
#include <link.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "runtime/common/fatal.hpp"

extern "C" void* tc_malloc(std::size_t);  // gperftools: locates its TLS block

namespace dstd::rt::sched {

namespace {

constexpr std::size_t dtv_offset = 8;   // tcbhead_t.dtv
constexpr std::size_t self_offset = 16;  // tcbhead_t.self

struct dtv_slot {
  void* val;
  void* to_free;
};
void* const unallocated = reinterpret_cast<void*>(-1l);  // TLS_DTV_UNALLOCATED

struct tls_module {
  std::size_t id;
  std::uintptr_t offset;  // below the thread pointer
  const void* image;
  std::size_t file_bytes;
  std::size_t mem_bytes;
  bool from_worker;  // the allocator's: copied from the worker (fiber_tls.hpp)
};

struct tls_layout {
  std::size_t area_bytes = 0;     // static TLS area, below the thread pointer
  std::size_t pthread_bytes = 0;  // struct pthread, at the thread pointer
  std::size_t align = 0;
  std::vector<tls_module> modules;
  std::vector<std::uintptr_t> offset_of;  // by module id; 0: not in static TLS
  std::ptrdiff_t rseq_offset = 0;         // from the thread pointer; 0: none
  std::size_t tid_offset = 0;             // struct pthread's tid
  void (*ctype_init)() = nullptr;
};

char* thread_pointer() {
  char* tp;
  asm volatile("mov %%fs:0, %0" : "=r"(tp));
  return tp;
}

const bool have_wrfsbase = (getauxval(AT_HWCAP2) & 2) != 0;  // HWCAP2_FSGSBASE

void set_thread_pointer(void* tp) {
  if (have_wrfsbase) {
    asm volatile("wrfsbase %0" : : "r"(tp) : "memory");
  } else if (syscall(SYS_arch_prctl, ARCH_SET_FS, tp) != 0) {
    fatal("arch_prctl(ARCH_SET_FS) failed: cannot switch a dstd thread's thread_local storage");
  }
}

bool holds(const dl_phdr_info& info, const void* p) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info.dlpi_phdr[i];
    const std::uintptr_t start = info.dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && at >= start && at < start + ph.p_memsz) return true;
  }
  return false;
}

struct discovery {
  tls_layout* layout;
  char* tp;
};

int add_module(dl_phdr_info* info, std::size_t, void* arg) {
  auto& d = *static_cast<discovery*>(arg);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_TLS || info->dlpi_tls_data == nullptr) continue;
    const auto offset = static_cast<std::uintptr_t>(d.tp - static_cast<char*>(info->dlpi_tls_data));
    if (offset == 0 || offset > d.layout->area_bytes) continue;  // dynamic TLS (dlopen)
    const bool from_worker = holds(*info, reinterpret_cast<const void*>(&tc_malloc)) &&
                             info->dlpi_name != nullptr && info->dlpi_name[0] != '\0';
    d.layout->modules.push_back({info->dlpi_tls_modid, offset,
                                 reinterpret_cast<const void*>(info->dlpi_addr + ph.p_vaddr),
                                 ph.p_filesz, ph.p_memsz, from_worker});
  }
  return 0;
}

template <class T>
T glibc_private(void* handle, const char* name) {
  void* p = dlvsym(handle, name, "GLIBC_PRIVATE");
  if (p == nullptr) fatal("glibc has no %s: dstd cannot give dstd threads their own thread_local storage", name);
  return reinterpret_cast<T>(p);
}

tls_layout discover() {
  tls_layout l;
  std::size_t size = 0;
  std::size_t align = 0;
  glibc_private<void (*)(std::size_t*, std::size_t*)>(RTLD_DEFAULT, "_dl_get_tls_static_info")(
      &size, &align);
  l.pthread_bytes = *glibc_private<const unsigned*>(RTLD_DEFAULT, "_thread_db_sizeof_pthread");
  l.align = align < alignof(std::max_align_t) ? alignof(std::max_align_t) : align;
  l.area_bytes = size - l.pthread_bytes;
  if (size <= l.pthread_bytes || l.area_bytes % l.align != 0) {
    fatal("unexpected static TLS layout (size %zu, align %zu, struct pthread %zu bytes)", size,
          align, l.pthread_bytes);
  }
  l.ctype_init = glibc_private<void (*)()>(RTLD_DEFAULT, "__ctype_init");
  l.tid_offset = glibc_private<const std::uint32_t*>(RTLD_DEFAULT, "_thread_db_pthread_tid")[2];
  if (l.tid_offset + sizeof(int) > l.pthread_bytes ||
      *reinterpret_cast<const int*>(thread_pointer() + l.tid_offset) != static_cast<int>(gettid())) {
    fatal("unexpected struct pthread layout (thread id at offset %zu)", l.tid_offset);
  }
  discovery d{&l, thread_pointer()};
  dl_iterate_phdr(add_module, &d);
  for (const tls_module& m : l.modules) {
    if (m.id >= l.offset_of.size()) l.offset_of.resize(m.id + 1, 0);
    l.offset_of[m.id] = m.offset;
  }
  const auto* rseq_size = static_cast<const unsigned*>(dlsym(RTLD_DEFAULT, "__rseq_size"));
  const auto* rseq_offset = static_cast<const std::ptrdiff_t*>(dlsym(RTLD_DEFAULT, "__rseq_offset"));
  if (rseq_size != nullptr && rseq_offset != nullptr && *rseq_size != 0) l.rseq_offset = *rseq_offset;
  return l;
}

const tls_layout& layout() {
  static const tls_layout l = discover();
  return l;
}

dtv_slot*& dtv_of(char* tp) { return *reinterpret_cast<dtv_slot**>(tp + dtv_offset); }

// The fiber's dtv for a new life: a copy of the worker's in which static
// modules point into the fiber's area and dlopen'd ones are allocated for
// the fiber when it first uses them. What the previous life allocated
// through its dtv (dlopen'd modules' blocks) is freed; the dtv itself is
// reused when it has the right size (glibc may have reallocated it).
dtv_slot* renew_dtv(const tls_layout& l, char* worker_tp, char* tp, dtv_slot* old) {
  const dtv_slot* theirs = dtv_of(worker_tp);
  const auto slots = reinterpret_cast<std::uintptr_t>(theirs[-1].val);
  dtv_slot* mine = old;
  if (old != nullptr) {
    const auto old_slots = reinterpret_cast<std::uintptr_t>(old[-1].val);
    for (std::uintptr_t m = 1; m <= old_slots; ++m) {
      const bool is_static = m < l.offset_of.size() && l.offset_of[m] != 0;
      if (!is_static && old[m].to_free != nullptr) std::free(old[m].to_free);
    }
    if (old_slots != slots) {
      std::free(old - 1);
      mine = nullptr;
    }
  }
  if (mine == nullptr) {
    auto* fresh = static_cast<dtv_slot*>(std::malloc((slots + 2) * sizeof(dtv_slot)));
    if (fresh == nullptr) fatal("out of memory for a dstd thread's thread_local table");
    mine = fresh + 1;
  }
  std::memcpy(mine - 1, theirs - 1, 2 * sizeof(dtv_slot));  // size and generation
  for (std::uintptr_t m = 1; m <= slots; ++m) {
    const std::uintptr_t offset = m < l.offset_of.size() ? l.offset_of[m] : 0;
    mine[m] = {offset != 0 ? tp - offset : unallocated, nullptr};
  }
  return mine;
}

// Each module's block as in a new thread: its image, then zeros (.tbss);
// the allocator's is the worker's (fiber_tls.hpp, take_worker_modules).
void init_modules(const tls_layout& l, char* tp) {
  for (const tls_module& m : l.modules) {
    if (m.from_worker) continue;
    char* mine = tp - m.offset;
    std::memcpy(mine, m.image, m.file_bytes);
    std::memset(mine + m.file_bytes, 0, m.mem_bytes - m.file_bytes);
  }
}

void take_worker_modules(const tls_layout& l, char* worker_tp, char* tp) {
  for (const tls_module& m : l.modules) {
    if (m.from_worker) std::memcpy(tp - m.offset, worker_tp - m.offset, m.mem_bytes);
  }
}

// The worker's tcmalloc cache, which fibers share, must exist before a
// fiber copies the allocator's TLS: a worker makes it by allocating once.
thread_local bool worker_has_allocator_cache = false;

void make_worker_allocator_cache() {
  if (worker_has_allocator_cache) return;
  std::free(std::malloc(1));
  worker_has_allocator_cache = true;
}

// The kernel updates only the worker's rseq area: the copy says "not
// registered", so sched_getcpu() asks the kernel and no rseq user trusts it.
void unregister_rseq(const tls_layout& l, char* tp) {
  if (l.rseq_offset == 0) return;
  char* area = tp + l.rseq_offset;
  const std::uint32_t registration_failed = static_cast<std::uint32_t>(-2);
  std::memset(area, 0, 16);  // cpu_id_start, cpu_id, rseq_cs
  std::memcpy(area + 4, &registration_failed, sizeof registration_failed);
}

}  // namespace

void prepare_fiber_tls(fiber_tls& t, int tid) {
  const tls_layout& l = layout();
  char* worker_tp = thread_pointer();
  make_worker_allocator_cache();
  dtv_slot* old_dtv = nullptr;
  if (t.block == nullptr) {
    const std::size_t bytes = l.area_bytes + (l.pthread_bytes + l.align - 1) / l.align * l.align;
    t.block = std::aligned_alloc(l.align, bytes);
    if (t.block == nullptr) fatal("out of memory for a dstd thread's thread_local storage");
    std::memset(t.block, 0, l.area_bytes);  // the surplus no module uses
  } else {
    old_dtv = dtv_of(static_cast<char*>(t.tp));
  }
  char* tp = static_cast<char*>(t.block) + l.area_bytes;
  dtv_slot* dtv = renew_dtv(l, worker_tp, tp, old_dtv);
  init_modules(l, tp);
  take_worker_modules(l, worker_tp, tp);
  std::memcpy(tp, worker_tp, l.pthread_bytes);
  *reinterpret_cast<char**>(tp) = tp;  // tcbhead_t.tcb: %fs:0 reads the thread pointer
  dtv_of(tp) = dtv;
  std::memcpy(tp + l.tid_offset, &tid, sizeof tid);
  unregister_rseq(l, tp);
  t.tp = tp;
  t.worker_tp = worker_tp;
}

void move_fiber_tls(fiber_tls& t) {
  const tls_layout& l = layout();
  char* worker_tp = thread_pointer();
  char* tp = static_cast<char*>(t.tp);
  make_worker_allocator_cache();
  take_worker_modules(l, worker_tp, tp);
  std::memcpy(tp + self_offset, worker_tp + self_offset, sizeof(void*));
  t.worker_tp = worker_tp;
}

int fiber_thread_id(std::uint64_t waiter_id) {
  constexpr std::uint64_t above_kernel_ids = 1u << 22;  // PID_MAX_LIMIT
  constexpr std::uint64_t below_tid_mask = 1u << 30;    // FUTEX_TID_MASK
  if (waiter_id >= below_tid_mask - above_kernel_ids) {
    fatal("more than %llu dstd threads made on this node: no thread id left for glibc's locks",
          static_cast<unsigned long long>(below_tid_mask - above_kernel_ids));
  }
  return static_cast<int>(above_kernel_ids + waiter_id);
}

void start_fiber_tls() { layout().ctype_init(); }

void enter_fiber_tls(const fiber_tls& t) { set_thread_pointer(t.tp); }

void leave_fiber_tls(const fiber_tls& t) { set_thread_pointer(t.worker_tp); }

}  // namespace dstd::rt::sched
