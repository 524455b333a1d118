// See thread_exit.hpp.
#include "runtime/sched/thread_exit.hpp"

#include <dlfcn.h>

#include <cstdlib>

#include "runtime/common/fatal.hpp"
#include "runtime/sched/scheduler.hpp"

namespace dstd::rt::sched {

namespace {

using destructor = void (*)(void*);

struct registration {
  destructor fn;
  void* object;
  registration* next;
};

// Per fiber: each fiber has its own thread-local storage.
thread_local registration* newest = nullptr;

using glibc_atexit = int (*)(destructor, void*, void*);

glibc_atexit glibcs() {
  static const auto fn =
      reinterpret_cast<glibc_atexit>(dlvsym(RTLD_NEXT, "__cxa_thread_atexit_impl", "GLIBC_2.18"));
  if (fn == nullptr) fatal("glibc has no __cxa_thread_atexit_impl");
  return fn;
}

}  // namespace

void run_thread_exit_destructors() {
  while (registration* r = newest) {
    newest = r->next;
    r->fn(r->object);
    std::free(r);
  }
}

}  // namespace dstd::rt::sched

// Not counted against its library for dlclose, unlike glibc's: a library
// unloaded while a dstd thread still holds its thread_local objects is not
// supported (README, limits).
extern "C" int __cxa_thread_atexit_impl(void (*fn)(void*), void* object, void* dso_symbol) {
  namespace sched = dstd::rt::sched;
  if (sched::current() == nullptr) return sched::glibcs()(fn, object, dso_symbol);
  auto* r = static_cast<sched::registration*>(std::malloc(sizeof(sched::registration)));
  if (r == nullptr) return -1;
  *r = {fn, object, sched::newest};
  sched::newest = r;
  return 0;
}
