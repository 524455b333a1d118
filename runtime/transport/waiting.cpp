// See waiting.hpp.
#include "runtime/transport/waiting.hpp"

#include <atomic>

namespace dstd::rt::waiting {

namespace {
std::atomic<const park_hooks*> installed{nullptr};
park_hooks storage;
thread_local unsigned no_park_depth = 0;  // nonzero: no_park_scope active
struct driver {
  void (*drive)(void*);
  void* arg;
};
driver driver_storage;
std::atomic<const driver*> progress_driver{nullptr};
}  // namespace

void set_progress_driver(void (*drive)(void*), void* arg) noexcept {
  driver_storage = driver{drive, arg};
  progress_driver.store(&driver_storage, std::memory_order_release);
}

bool drive_progress() {
  const driver* d = progress_driver.load(std::memory_order_acquire);
  if (d == nullptr) return false;
  d->drive(d->arg);
  return true;
}

void install(const park_hooks& hooks) noexcept {
  if (installed.load(std::memory_order_acquire) != nullptr) return;
  storage = hooks;
  installed.store(&storage, std::memory_order_release);
}

no_park_scope::no_park_scope() noexcept { ++no_park_depth; }
no_park_scope::~no_park_scope() { --no_park_depth; }

void* parkable_waiter() noexcept {
  if (no_park_depth != 0) return nullptr;
  const park_hooks* h = installed.load(std::memory_order_acquire);
  return h != nullptr ? h->current_fiber() : nullptr;
}

void park() { installed.load(std::memory_order_acquire)->park(); }

void unpark(void* waiter) noexcept { installed.load(std::memory_order_acquire)->unpark(waiter); }

}  // namespace dstd::rt::waiting
