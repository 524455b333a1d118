// Thread ids, this_thread and hardware_concurrency (include/dstd/thread).
//
// An id is (creating node + 1) << 40 | a serial number of that node, so ids
// are unique across the cluster without asking anyone. A dstd thread's id
// sits in its fiber's local slot; any other thread (main, a plain
// std::thread) gets one the first time it asks.
#include <atomic>
#include <dstd/thread>
#include <ostream>
#include <system_error>

#include "dstd/thread/thread_ids.hpp"
#include "runtime/control/placement.hpp"
#include "runtime/sched/scheduler.hpp"

namespace dstd::detail {

namespace {

std::atomic<std::uint64_t> next_serial{1};

}  // namespace

std::uint64_t new_thread_id() noexcept {
  const std::uint64_t node = this_node();
  return (node + 1) << 40 | next_serial.fetch_add(1, std::memory_order_relaxed);
}

void set_current_thread_id(std::uint64_t id) noexcept {
  rt::sched::local_slot() = reinterpret_cast<void*>(id);
}

std::uint64_t current_thread_id() noexcept {
  void*& slot = rt::sched::local_slot();
  if (slot == nullptr) slot = reinterpret_cast<void*>(new_thread_id());
  return reinterpret_cast<std::uint64_t>(slot);
}

unsigned cluster_hardware_concurrency() noexcept { return rt::placement::cluster_workers(); }

void yield_thread() noexcept { rt::sched::yield(); }

void sleep_thread_until(std::chrono::steady_clock::time_point t) { rt::sched::sleep_until(t); }

void throw_thread_error(int errc, const char* what) {
  throw std::system_error(errc, std::generic_category(), what);
}

}  // namespace dstd::detail
