// The definition an interposed function hides: glibc's pthread_* and sem_*,
// libstdc++'s __cxa_guard_*, found with dlsym(RTLD_NEXT) on first use.
//
// Why lazily and without a static local: the first mutex of the process is
// locked inside the first malloc, before any constructor, and a static
// local's guard would call the interposed __cxa_guard_acquire from inside
// itself. A constinit object with an atomic pointer needs neither; two
// threads that resolve at once store the same pointer.
#pragma once

#include <dlfcn.h>

#include <atomic>

#include "runtime/common/fatal.hpp"

namespace dstd::interpose {

template <class Fn>
class next_definition {
 public:
  constexpr explicit next_definition(const char* name) noexcept : name_(name) {}

  Fn* get() const noexcept {
    Fn* f = fn_.load(std::memory_order_relaxed);
    return f != nullptr ? f : resolve();
  }

 private:
  [[gnu::noinline]] Fn* resolve() const noexcept {
    auto* f = reinterpret_cast<Fn*>(dlsym(RTLD_NEXT, name_));
    if (f == nullptr) rt::fatal("libdstd interposes %s but finds no definition of it to call", name_);
    fn_.store(f, std::memory_order_relaxed);
    return f;
  }

  const char* name_;
  mutable std::atomic<Fn*> fn_{nullptr};
};

}  // namespace dstd::interpose
