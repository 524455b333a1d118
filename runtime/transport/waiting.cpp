// See waiting.hpp.
#include "runtime/transport/waiting.hpp"

#include <atomic>

namespace dstd::rt::waiting {

namespace {
std::atomic<const park_hooks*> installed{nullptr};
park_hooks storage;
thread_local unsigned no_park_depth = 0;  // nonzero: no_park_scope active
thread_local void (*progress_driver)(void*) = nullptr;
thread_local void* progress_driver_arg = nullptr;
}  // namespace

void set_progress_driver(void (*drive)(void*), void* arg) noexcept {
  progress_driver = drive;
  progress_driver_arg = arg;
}

bool drive_progress() {
  if (progress_driver == nullptr) return false;
  progress_driver(progress_driver_arg);
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
