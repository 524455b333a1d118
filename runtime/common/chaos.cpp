// See chaos.hpp.
#include "runtime/common/chaos.hpp"

#include <sched.h>
#include <time.h>

#include "runtime/common/clock.hpp"
#include "runtime/common/settings.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/kernel_sleep.hpp"

namespace dstd::rt::chaos {

namespace detail {
bool enabled = false;
stall_point stalled = stall_point::none;
}  // namespace detail

namespace {

std::uint64_t seed = 0;
std::atomic<std::uint64_t> draws{0};

// splitmix64: a good 64-bit mix of (seed, draw number).
std::uint64_t mix(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

void spin_for(std::uint64_t ns) noexcept {
  const std::uint64_t until = monotonic_ns() + ns;
  while (monotonic_ns() < until) __builtin_ia32_pause();
}

}  // namespace

void detail::delay() noexcept {
  const std::uint64_t r = mix(seed ^ mix(draws.fetch_add(1, std::memory_order_relaxed)));
  const std::uint64_t pick = r % 64, more = r >> 8;
  if (pick < 32) return;                          // half of the time: no delay
  if (pick < 52) return spin_for(more % 4000);    // up to 4 us
  if (pick < 60) return spin_for(4000 + more % 40000);  // 4 to 44 us
  if (pick < 63) return void(sched_yield());      // let another thread run
  // Rarely, long enough for a whole exchange elsewhere (an unlock, a wake-up
  // message, a lock and an acquire on another worker) to fit in the window.
  kernel_sleep_ns(100000 + more % 400000);  // 0.1 to 0.5 ms
}

void detail::stall_now() noexcept {
  kernel_sleep_ns(current_settings().chaos_stall_ms * 1000000);
}

void configure_from_env() {
  // `none` is never passed to stall(): stalled stays `none` unless asked.
  if (current_settings().chaos_stall_at != 0) {
    detail::stalled = static_cast<stall_point>(current_settings().chaos_stall_at);
  }
  if (!current_settings().chaos) return;
  seed = current_settings().chaos_seed;
  detail::enabled = true;
}

}  // namespace dstd::rt::chaos
