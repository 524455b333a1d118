// The cost of libdstd's interposed pthread calls (dstd/interpose/): an
// uncontended std::mutex lock+unlock, a sem_post+sem_trywait pair and the
// use of a function-local static (its guard), as a program not rebuilt for
// dstd makes them, against glibc's own functions
// called directly (what the same calls cost without the interposer). In a
// one-node run every call goes to glibc after one flag check; at several
// nodes an object in the global heap is the cluster's (homed here: CPU
// atomics plus the coherence checks; homed on node 1: remote operations),
// one in node-private memory (mmap'ed here) is still glibc's.
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/mman.h>

#include <cstdio>
#include <dstd/dstd.hpp>
#include <dstd/thread>
#include <mutex>
#include <new>
#include <vector>

#include "bench/harness.hpp"

namespace {

using dstd::bench::measure;
using dstd::bench::result;

constexpr int batch = 10000;

// glibc's definitions, bypassing libdstd's.
struct glibc_calls {
  int (*lock)(pthread_mutex_t*);
  int (*unlock)(pthread_mutex_t*);
};

glibc_calls find_glibc() {
  void* libc = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
  return {reinterpret_cast<int (*)(pthread_mutex_t*)>(dlsym(libc, "pthread_mutex_lock")),
          reinterpret_cast<int (*)(pthread_mutex_t*)>(dlsym(libc, "pthread_mutex_unlock"))};
}

template <class T>
T* node_private() {
  void* p = mmap(nullptr, sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return new (p) T();
}

result lock_unlock(const char* name, std::mutex& m) {
  return measure(name, [&m] {
    m.lock();
    m.unlock();
  }, batch);
}

// A Meyers singleton with a dynamic initializer, so that each use checks
// its guard (inline; at several nodes the check calls libdstd:
// dstd/interpose/guards_done_here.hpp).
[[gnu::noinline]] int& singleton_value() {
  static int value = static_cast<int>(dstd::node_count()) + 41;
  return value;
}

result post_trywait(const char* name, sem_t* s) {
  return measure(name, [s] {
    sem_post(s);
    sem_trywait(s);
  }, batch);
}

}  // namespace

int main() {
  std::vector<result> rows;
  dstd::spawn_on(0, [&rows] {
    const glibc_calls glibc = find_glibc();
    auto* heap_mutex = new std::mutex;  // homed on node 0
    rows.push_back(measure("glibc pthread_mutex lock+unlock, direct", [&] {
      glibc.lock(heap_mutex->native_handle());
      glibc.unlock(heap_mutex->native_handle());
    }, batch));
    rows.push_back(lock_unlock("std::mutex lock+unlock, heap, home here", *heap_mutex));
    rows.push_back(lock_unlock("std::mutex lock+unlock, node-private", *node_private<std::mutex>()));
    auto* heap_sem = new sem_t;
    sem_init(heap_sem, 0, 0);
    rows.push_back(post_trywait("sem_post+sem_trywait, heap, home here", heap_sem));
    int sum = 0;
    rows.push_back(measure("function-local static use (guard check)", [&sum] { sum += singleton_value(); },
                           batch));
    if (sum == 0) std::puts("");  // (the uses are not optimized away)
    if (dstd::node_count() > 1) {
      std::mutex* remote_mutex = nullptr;
      sem_t* remote_sem = nullptr;
      dstd::spawn_on(1, [&] {
        remote_mutex = new std::mutex;
        remote_sem = new sem_t;
        sem_init(remote_sem, 0, 0);
      }).join();
      rows.push_back(lock_unlock("std::mutex lock+unlock, heap, home node 1", *remote_mutex));
      rows.push_back(post_trywait("sem_post+sem_trywait, heap, home node 1", remote_sem));
    }
  }).join();
  char title[64];
  std::snprintf(title, sizeof title, "std sync through libdstd, %u node(s)", dstd::node_count());
  dstd::bench::print_table(title, rows);
  return 0;
}
