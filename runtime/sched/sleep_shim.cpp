// The sleep family on a fiber: sleep, usleep, nanosleep and clock_nanosleep
// park the calling fiber with a timer (as dstd::this_thread::sleep_for
// does) instead of blocking its worker; on any other thread they are
// glibc's.
//
// Why: a dstd thread is a fiber, and every fiber bound to a worker (see
// scheduler.hpp) waits while that worker's OS thread sleeps in the kernel:
// a `::sleep(1)` in one thread stalled the others of its worker for the
// whole second, and a node with one worker stopped. Extra workers
// (extra_workers.hpp) cannot help the fibers already bound to the sleeper's
// worker; parking frees it. std::this_thread::sleep_for calls nanosleep, so
// it parks too.
//
// Differences from glibc on a fiber: signals do not interrupt the sleep (no
// EINTR; `rem` is left alone), and an absolute CLOCK_REALTIME deadline is
// turned into a duration when the call is made (a clock change during the
// sleep does not move it). A zero or past time yields to the other fibers
// of the worker. Clocks other than the realtime, monotonic, boottime and
// TAI ones (CPU-time clocks) keep glibc's behaviour, blocking. So does a
// fiber that holds one of the program's locks glibc serves
// (held_glibc_locks.hpp): its waiters block their workers, maybe its own.
//
// Exported from libdstd (cmake/libdstd.version), so the program's calls and
// libstdc++'s bind here; the runtime's own sleeps use kernel_sleep.hpp.
#include <dlfcn.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "runtime/sched/held_glibc_locks.hpp"
#include "runtime/sched/scheduler.hpp"

namespace dstd::rt::sched {

namespace {

template <class Fn>
Fn next_definition(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

// A fiber parks, unless it holds a lock glibc serves (held_glibc_locks.hpp):
// then it sleeps in the kernel, keeping its worker.
bool on_fiber() { return current() != nullptr && !holds_glibc_lock(); }

bool valid(const timespec& t) { return t.tv_sec >= 0 && t.tv_nsec >= 0 && t.tv_nsec < 1'000'000'000; }

// Longer than any program runs, short enough that now() + it cannot overflow.
constexpr std::chrono::seconds longest{std::chrono::hours(24 * 365 * 100)};

clock::duration duration_of(time_t seconds, long nanoseconds) {
  if (seconds >= longest.count()) return longest;
  return std::chrono::seconds(seconds) + std::chrono::nanoseconds(nanoseconds);
}

// The calling fiber sleeps for `d`; no time at all yields.
void park_for(clock::duration d) {
  if (d <= clock::duration::zero()) {
    yield();
    return;
  }
  sleep_until(clock::now() + d);
}

bool parks_on(clockid_t c) {
  return c == CLOCK_REALTIME || c == CLOCK_MONOTONIC || c == CLOCK_BOOTTIME || c == CLOCK_TAI;
}

}  // namespace

}  // namespace dstd::rt::sched

namespace sched = dstd::rt::sched;

extern "C" [[gnu::visibility("default")]] unsigned sleep(unsigned seconds) {
  if (!sched::on_fiber()) {
    static const auto next = sched::next_definition<unsigned (*)(unsigned)>("sleep");
    return next(seconds);
  }
  sched::park_for(std::chrono::seconds(seconds));
  return 0;
}

extern "C" [[gnu::visibility("default")]] int usleep(useconds_t microseconds) {
  if (!sched::on_fiber()) {
    static const auto next = sched::next_definition<int (*)(useconds_t)>("usleep");
    return next(microseconds);
  }
  sched::park_for(std::chrono::microseconds(microseconds));
  return 0;
}

extern "C" [[gnu::visibility("default")]] int nanosleep(const timespec* duration,
                                                        timespec* remaining) {
  if (!sched::on_fiber()) {
    static const auto next =
        sched::next_definition<int (*)(const timespec*, timespec*)>("nanosleep");
    return next(duration, remaining);
  }
  if (!sched::valid(*duration)) {
    errno = EINVAL;
    return -1;
  }
  sched::park_for(sched::duration_of(duration->tv_sec, duration->tv_nsec));
  return 0;
}

extern "C" [[gnu::visibility("default")]] int clock_nanosleep(clockid_t clock, int flags,
                                                              const timespec* time,
                                                              timespec* remaining) {
  if (!sched::on_fiber() || !sched::parks_on(clock)) {
    static const auto next =
        sched::next_definition<int (*)(clockid_t, int, const timespec*, timespec*)>(
            "clock_nanosleep");
    return next(clock, flags, time, remaining);
  }
  if (!sched::valid(*time)) return EINVAL;
  timespec now{};  // an absolute time counts from now; the clocks accepted start at 0
  if ((flags & TIMER_ABSTIME) != 0) clock_gettime(clock, &now);
  sched::park_for(sched::duration_of(time->tv_sec - now.tv_sec, time->tv_nsec - now.tv_nsec));
  return 0;
}
