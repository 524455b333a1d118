// See trace.hpp. The ring, the track names, and the JSON the node writes.
#include "runtime/common/trace.hpp"

#include <pthread.h>
#include <sys/mman.h>

#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>

#include "runtime/common/clock.hpp"
#include "runtime/common/env.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/launch_contract.hpp"
#include "runtime/common/settings.hpp"

namespace dstd::rt::trace {

bool detail::enabled = false;

namespace {

struct event {
  std::uint64_t start, end, thread, a, b, c;
  kind what;
};

struct slot {
  std::atomic<std::uint64_t> published;  // its event's number + 1, once filled
  event e;
};

slot* ring = nullptr;
std::uint64_t capacity = 0;
std::atomic<std::uint64_t> claimed{0};  // events recorded so far (the next one's number)

// Where the events go at exit.
std::string out_path;
unsigned out_node = 0;
bool out_part = false;  // under dstdrun: a part to merge, not a whole document

struct track {
  std::atomic<std::uint64_t> thread{0};  // pthread_self() of its thread, once named
  char name[48] = {};
};
constexpr unsigned max_tracks = 1024;  // workers come and go; later names win
track tracks[max_tracks];
std::atomic<unsigned> track_count{0};

std::uint64_t self_key() noexcept { return static_cast<std::uint64_t>(pthread_self()); }

// ---- writing ------------------------------------------------------------

class writer {
 public:
  explicit writer(std::FILE* f) : f_(f) {}

  // Starts the next event object; the caller writes its fields and "}".
  void begin(const char* name, const char* cat, char phase, std::uint64_t ns, unsigned tid) {
    std::fputs(first_ ? "" : ",\n", f_);
    first_ = false;
    std::fprintf(f_, "{\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"%c\", \"ts\": %.3f, \"pid\": %u, \"tid\": %u",
                 name, cat, phase, static_cast<double>(ns) / 1000.0, out_node, tid);
  }
  void metadata(const char* what, unsigned tid, const std::string& name) {
    std::fputs(first_ ? "" : ",\n", f_);
    first_ = false;
    std::fprintf(f_, "{\"name\": \"%s\", \"ph\": \"M\", \"pid\": %u, \"tid\": %u, \"args\": {\"name\": \"%s\"}}",
                 what, out_node, tid, name.c_str());
  }
  std::FILE* file() const { return f_; }

 private:
  std::FILE* f_;
  bool first_ = true;
};

void write_event(writer& w, const event& e, unsigned tid) {
  std::FILE* f = w.file();
  const double dur = static_cast<double>(e.end - e.start) / 1000.0;
  switch (e.what) {
    case kind::run:
      w.begin("dstd thread", "run", 'X', e.start, tid);
      std::fprintf(f, ", \"dur\": %.3f, \"args\": {\"waiter\": %" PRIu64 "}}", dur, e.a);
      break;
    case kind::fault:
      w.begin(e.c ? "write fault" : "read fault", "fault", 'X', e.start, tid);
      std::fprintf(f, ", \"dur\": %.3f, \"args\": {\"page\": \"%#" PRIx64 "\", \"home\": %" PRIu64 "}}", dur,
                   e.a, e.b);
      break;
    case kind::release:
      w.begin("release", "coherence", 'X', e.start, tid);
      std::fprintf(f, ", \"dur\": %.3f, \"args\": {\"pages\": %" PRIu64 ", \"diff_bytes\": %" PRIu64 "}}",
                   dur, e.a, e.b);
      break;
    case kind::acquire:
      w.begin("acquire", "coherence", 'X', e.start, tid);
      std::fprintf(f, ", \"dur\": %.3f, \"args\": {\"pages_dropped\": %" PRIu64 "}}", dur, e.a);
      break;
    case kind::wait:
      // Waits of different dstd threads overlap on one worker's track (a
      // thread parks, another runs): an async pair keyed by the waiter.
      w.begin("wait", "wait", 'b', e.start, tid);
      std::fprintf(f, ", \"id\": \"%#" PRIx64 "\", \"args\": {\"word\": \"%#" PRIx64 "\", \"home\": %" PRIu64 "}}",
                   e.c, e.a, e.b);
      w.begin("wait", "wait", 'e', e.end, tid);
      std::fprintf(f, ", \"id\": \"%#" PRIx64 "\"}", e.c);
      break;
    case kind::handle:
      w.begin(reinterpret_cast<const char*>(e.a), "message", 'X', e.start, tid);
      std::fprintf(f, ", \"dur\": %.3f, \"args\": {\"from\": %" PRIu64 ", \"bytes\": %" PRIu64 "}}", dur, e.b,
                   e.c);
      break;
    case kind::send:
      w.begin("send", "message", 'i', e.start, tid);
      std::fprintf(f, ", \"s\": \"t\", \"args\": {\"handler\": \"%s\", \"to\": %" PRIu64 ", \"bytes\": %" PRIu64 "}}",
                   reinterpret_cast<const char*>(e.a), e.b, e.c);
      break;
  }
}

// Track numbers: named threads first (1, 2, ... in the order they were
// named), then any other thread that recorded, as it is met.
class track_numbers {
 public:
  track_numbers() {
    const unsigned named = std::min(track_count.load(std::memory_order_acquire), max_tracks);
    for (unsigned i = 0; i < named; ++i) {
      const std::uint64_t t = tracks[i].thread.load(std::memory_order_acquire);
      if (t != 0) tid_[t] = i + 1;  // a later name of the same thread wins
    }
  }
  unsigned operator()(std::uint64_t thread, writer& w) {
    auto [it, added] = tid_.try_emplace(thread, max_tracks + 1 + unnamed_);
    if (added) w.metadata("thread_name", it->second, "other thread " + std::to_string(++unnamed_));
    return it->second;
  }

 private:
  std::unordered_map<std::uint64_t, unsigned> tid_;
  unsigned unnamed_ = 0;
};

void write_events(writer& w) {
  const std::uint64_t n = claimed.load(std::memory_order_acquire);
  const std::uint64_t first = n > capacity ? n - capacity : 0;
  std::string process = "node " + std::to_string(out_node);
  if (first > 0) process += " (oldest " + std::to_string(first) + " events overwritten)";
  w.metadata("process_name", 0, process);
  const unsigned named = std::min(track_count.load(std::memory_order_acquire), max_tracks);
  for (unsigned i = 0; i < named; ++i) w.metadata("thread_name", i + 1, tracks[i].name);
  track_numbers tid;
  for (std::uint64_t i = first; i < n; ++i) {
    const slot& s = ring[i % capacity];
    if (s.published.load(std::memory_order_acquire) != i + 1) continue;  // still being written
    const event e = s.e;
    std::atomic_thread_fence(std::memory_order_acquire);
    if (s.published.load(std::memory_order_relaxed) != i + 1) continue;  // overwritten meanwhile
    write_event(w, e, tid(e.thread, w));
  }
}

}  // namespace

void detail::record(kind k, std::uint64_t start, std::uint64_t end, std::uint64_t a, std::uint64_t b,
                    std::uint64_t c) noexcept {
  const std::uint64_t i = claimed.fetch_add(1, std::memory_order_relaxed);
  slot& s = ring[i % capacity];
  s.published.store(0, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  s.e = event{start, end, self_key(), a, b, c, k};
  s.published.store(i + 1, std::memory_order_release);
}

void configure_from_env(unsigned node, bool under_launcher) {
  const char* file = env::text(launch::env_trace);
  if (file == nullptr || *file == '\0') return;
  capacity = current_settings().trace_events;
  out_node = node;
  out_part = under_launcher;
  out_path = under_launcher ? launch::trace_part_path(file, node) : std::string(file);
  // Fail now, not at the end of the run.
  std::FILE* f = std::fopen(out_path.c_str(), "w");
  if (f == nullptr) fatal("cannot write the trace file %s: %s", out_path.c_str(), std::strerror(errno));
  std::fclose(f);
  void* m = mmap(nullptr, capacity * sizeof(slot), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) {
    fatal("cannot allocate the trace ring of %" PRIu64 " events (DSTD_TRACE_EVENTS): %s", capacity,
          std::strerror(errno));
  }
  ring = static_cast<slot*>(m);
  detail::enabled = true;
}

std::uint64_t now() noexcept { return monotonic_ns(); }

void name_this_thread(const char* role, int index) noexcept {
  if (!on()) return;
  const unsigned i = track_count.fetch_add(1, std::memory_order_relaxed);
  if (i >= max_tracks) return;  // its events go to an unnamed track
  if (index < 0) {
    std::snprintf(tracks[i].name, sizeof tracks[i].name, "%s", role);
  } else {
    std::snprintf(tracks[i].name, sizeof tracks[i].name, "%s %d", role, index);
  }
  tracks[i].thread.store(self_key(), std::memory_order_release);
}

void write_at_exit() {
  if (!on()) return;
  std::FILE* f = std::fopen(out_path.c_str(), "w");
  if (f == nullptr) {
    std::fprintf(stderr, "dstd: node %u cannot write its trace to %s: %s\n", out_node, out_path.c_str(),
                 std::strerror(errno));
    return;
  }
  if (!out_part) std::fputs(launch::trace_document_head, f);
  writer w(f);
  write_events(w);
  if (!out_part) std::fputs(launch::trace_document_tail, f);
  if (std::fclose(f) != 0) {
    std::fprintf(stderr, "dstd: node %u cannot write its trace to %s: %s\n", out_node, out_path.c_str(),
                 std::strerror(errno));
  }
}

}  // namespace dstd::rt::trace
