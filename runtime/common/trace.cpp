// See trace.hpp. Recording into the ring, naming tracks, and when the ring
// is written (trace_json.cpp writes it).
#include "runtime/common/trace.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "runtime/common/clock.hpp"
#include "runtime/common/env.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/launch_contract.hpp"
#include "runtime/common/settings.hpp"
#include "runtime/common/trace_ring.hpp"

namespace dstd::rt::trace {

bool detail::enabled = false;

namespace ring {
slot* slots = nullptr;
std::uint64_t capacity = 0;
std::atomic<std::uint64_t> claimed{0};
track tracks[max_tracks];
std::atomic<unsigned> track_count{0};
}  // namespace ring

namespace {

// Where the events go: under dstdrun a part to merge, else the document.
std::string out_path;
unsigned out_node = 0;
bool out_part = false;
std::atomic<bool> written{false};  // by the end of the node or by a stop signal, once

std::uint64_t self_key() noexcept { return static_cast<std::uint64_t>(pthread_self()); }

bool write_once() noexcept {
  if (written.exchange(true)) return true;
  const int fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const bool ok = ring::write_json(fd, out_node, out_part ? "" : launch::trace_document_head,
                                   out_part ? "" : launch::trace_document_tail);
  const int saved = errno;
  const bool closed = ::close(fd) == 0;
  errno = ok ? errno : saved;
  return ok && closed;
}

// dstdrun stops the nodes of a run that timed out or failed with SIGTERM
// (Ctrl-C sends SIGINT to them all), and abort() (a failed assert,
// std::terminate) raises SIGABRT: that is when a trace is most wanted, so
// the node writes what it has, then dies of the signal as it would have.
void on_deadly_signal(int sig) {
  const int saved = errno;
  write_once();
  errno = saved;
  raise(sig);  // SA_RESETHAND restored the default action
}

void write_on_deadly_signals() {
  for (int sig : {SIGTERM, SIGINT, SIGABRT}) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;  // the program's
    struct sigaction act {};
    act.sa_handler = on_deadly_signal;
    act.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigemptyset(&act.sa_mask);
    sigaction(sig, &act, nullptr);
  }
}

}  // namespace

void detail::record(kind k, std::uint64_t start, std::uint64_t end, std::uint64_t a, std::uint64_t b,
                    std::uint64_t c) noexcept {
  const std::uint64_t i = ring::claimed.fetch_add(1, std::memory_order_relaxed);
  ring::slot& s = ring::slots[i % ring::capacity];
  s.published.store(0, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  s.e = ring::event{start, end, self_key(), a, b, c, k};
  s.published.store(i + 1, std::memory_order_release);
}

void configure_from_env(unsigned node, bool under_launcher) {
  const char* file = env::text(launch::env_trace);
  if (file == nullptr || *file == '\0') return;
  ring::capacity = current_settings().trace_events;
  out_node = node;
  out_part = under_launcher;
  out_path = under_launcher ? launch::trace_part_path(file, node) : std::string(file);
  // Fail now, not at the end of the run.
  const int fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fatal("cannot write the trace file %s: %s", out_path.c_str(), std::strerror(errno));
  ::close(fd);
  void* m = mmap(nullptr, ring::capacity * sizeof(ring::slot), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) {
    fatal("cannot allocate the trace ring of %" PRIu64 " events (DSTD_TRACE_EVENTS): %s", ring::capacity,
          std::strerror(errno));
  }
  ring::slots = static_cast<ring::slot*>(m);
  detail::enabled = true;
  write_on_deadly_signals();
}

std::uint64_t now() noexcept { return monotonic_ns(); }

void name_this_thread(const char* role, int index) noexcept {
  if (!on()) return;
  const unsigned i = ring::track_count.fetch_add(1, std::memory_order_relaxed);
  if (i >= ring::max_tracks) return;  // its events go to an unnamed track
  ring::track& t = ring::tracks[i];
  if (index < 0) {
    std::snprintf(t.name, sizeof t.name, "%s", role);
  } else {
    std::snprintf(t.name, sizeof t.name, "%s %d", role, index);
  }
  t.thread.store(self_key(), std::memory_order_release);
}

void write_before_dying() noexcept {
  if (on()) write_once();
}

void write_at_exit() {
  if (!on()) return;
  if (!write_once()) {
    std::fprintf(stderr, "dstd: node %u cannot write its trace to %s: %s\n", out_node, out_path.c_str(),
                 std::strerror(errno));
  }
}

}  // namespace dstd::rt::trace
