// See settings.hpp.
#include "runtime/common/settings.hpp"

#include <algorithm>
#include <thread>

#include "runtime/common/env.hpp"

namespace dstd::rt {

namespace {

settings parse() {
  settings s;
  s.workers = static_cast<unsigned>(
      env::number("DSTD_WORKERS", 1, 4096, std::max(1u, std::thread::hardware_concurrency())));
  s.stack_bytes = env::number("DSTD_STACK_KB", 1, 1024 * 1024, 8 * 1024) * 1024;
  s.chaos = env::text("DSTD_CHAOS") != nullptr;
  s.chaos_seed = env::number("DSTD_CHAOS", 0, UINT64_MAX, 0);
  // The names of chaos::stall_point, in its order.
  s.chaos_stall_at = static_cast<unsigned>(
      env::choice("DSTD_CHAOS_STALL_AT", {"none", "thread_finished"}, 0));
  s.chaos_stall_ms = env::number("DSTD_CHAOS_STALL_MS", 1, 60'000, 100);
  s.place_local = env::choice("DSTD_PLACEMENT", {"spread", "local"}, 0) == 1;
  s.shm_delay_us = env::number("DSTD_SHM_DELAY_US", 0, 1'000'000, 0);
  s.stats = env::choice("DSTD_STATS", {"0", "1"}, 0) == 1;
  s.trace_events = env::number("DSTD_TRACE_EVENTS", 16, std::uint64_t(1) << 26, 65536);
  s.track_home_writes = env::choice("DSTD_TRACK_HOME_WRITES", {"0", "1"}, 1) == 1;
  return s;
}

}  // namespace

const settings& current_settings() {
  static const settings s = parse();
  return s;
}

}  // namespace dstd::rt
