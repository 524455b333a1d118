// The node's trace as Chrome trace event JSON (trace_ring.hpp).
//
// Why by hand, into a static buffer: the same writer runs at the normal end
// of a node and from the SIGTERM/SIGINT handler when dstdrun stops a run
// (a timeout, a failed node, Ctrl-C), where only async-signal-safe calls
// may be made: no stdio, no allocation, no locale-dependent formatting.
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/common/trace_ring.hpp"

namespace dstd::rt::trace::ring {

namespace {

class json_out {
 public:
  void start(int fd) {
    fd_ = fd;
    n_ = 0;
    ok_ = true;
    first_ = true;
  }
  void text(const char* s) {
    while (*s != '\0') put(*s++);
  }
  void number(std::uint64_t v) {
    char digits[20];
    int k = 0;
    do {
      digits[k++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (k > 0) put(digits[--k]);
  }
  void hex(std::uint64_t v) {
    text("\"0x");
    char digits[16];
    int k = 0;
    do {
      digits[k++] = "0123456789abcdef"[v & 15];
      v >>= 4;
    } while (v != 0);
    while (k > 0) put(digits[--k]);
    put('"');
  }
  void micros(std::uint64_t ns) {  // nanoseconds as microseconds, 3 decimals
    number(ns / 1000);
    put('.');
    const unsigned frac = static_cast<unsigned>(ns % 1000);
    put(static_cast<char>('0' + frac / 100));
    put(static_cast<char>('0' + frac / 10 % 10));
    put(static_cast<char>('0' + frac % 10));
  }
  void next_object() {
    if (!first_) text(",\n");
    first_ = false;
  }
  bool finish() {
    flush();
    return ok_;
  }

 private:
  void put(char c) {
    if (n_ == sizeof buf_) flush();
    buf_[n_++] = c;
  }
  void flush() {
    std::size_t done = 0;
    while (ok_ && done < n_) {
      const ssize_t w = ::write(fd_, buf_ + done, n_ - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        ok_ = false;
        break;
      }
      done += static_cast<std::size_t>(w);
    }
    n_ = 0;
  }

  int fd_ = -1;
  std::size_t n_ = 0;
  bool ok_ = true;
  bool first_ = true;
  char buf_[1 << 16];
};

// Static, not on the stack: a signal handler's stack may be small.
json_out out;
unsigned out_node = 0;

void begin(const char* name, const char* cat, char phase, std::uint64_t ns, unsigned tid) {
  out.next_object();
  out.text("{\"name\": \"");
  out.text(name);
  out.text("\", \"cat\": \"");
  out.text(cat);
  out.text("\", \"ph\": \"");
  const char ph[2] = {phase, '\0'};
  out.text(ph);
  out.text("\", \"ts\": ");
  out.micros(ns);
  out.text(", \"pid\": ");
  out.number(out_node);
  out.text(", \"tid\": ");
  out.number(tid);
}

// A metadata object naming the process (tid 0) or a track; `count` > 0
// appends " (oldest <count> events overwritten)".
void metadata(const char* what, unsigned tid, const char* name, int index, std::uint64_t count) {
  out.next_object();
  out.text("{\"name\": \"");
  out.text(what);
  out.text("\", \"ph\": \"M\", \"pid\": ");
  out.number(out_node);
  out.text(", \"tid\": ");
  out.number(tid);
  out.text(", \"args\": {\"name\": \"");
  out.text(name);
  if (index >= 0) {
    out.text(" ");
    out.number(static_cast<std::uint64_t>(index));
  }
  if (count > 0) {
    out.text(" (oldest ");
    out.number(count);
    out.text(" events overwritten)");
  }
  out.text("\"}}");
}

// An event's "args" object: args_begin, then arg_*, then args_end.
bool first_arg = true;
void args_begin() {
  out.text(", \"args\": {");
  first_arg = true;
}
void arg_key(const char* key) {
  out.text(first_arg ? "\"" : ", \"");
  first_arg = false;
  out.text(key);
  out.text("\": ");
}
void arg(const char* key, std::uint64_t v) {
  arg_key(key);
  out.number(v);
}
void arg_hex(const char* key, std::uint64_t v) {
  arg_key(key);
  out.hex(v);
}
void arg_text(const char* key, const char* v) {
  arg_key(key);
  out.text("\"");
  out.text(v);
  out.text("\"");
}
void args_end() { out.text("}}"); }

// A complete ("X") event: a span on its track.
void span(const char* name, const char* cat, const event& e, unsigned tid) {
  begin(name, cat, 'X', e.start, tid);
  out.text(", \"dur\": ");
  out.micros(e.end - e.start);
  args_begin();
}

void write_event(const event& e, unsigned tid) {
  switch (e.what) {
    case kind::run:
      span("dstd thread", "run", e, tid);
      arg("waiter", e.a);
      break;
    case kind::fault:
      span(e.c ? "write fault" : "read fault", "fault", e, tid);
      arg_hex("page", e.a);
      arg("home", e.b);
      break;
    case kind::release:
      span("release", "coherence", e, tid);
      arg("pages", e.a);
      arg("diff_bytes", e.b);
      break;
    case kind::acquire:
      span("acquire", "coherence", e, tid);
      arg("pages_dropped", e.a);
      arg("pages_refreshed", e.b);
      break;
    case kind::wait:
      // Waits of different dstd threads overlap on one worker's track (a
      // thread parks, another runs): an async pair keyed by the waiter.
      begin("wait", "wait", 'b', e.start, tid);
      out.text(", \"id\": ");
      out.hex(e.c);
      args_begin();
      arg_hex("word", e.a);
      arg("home", e.b);
      args_end();
      begin("wait", "wait", 'e', e.end, tid);
      out.text(", \"id\": ");
      out.hex(e.c);
      out.text("}");
      return;
    case kind::handle:
      span(reinterpret_cast<const char*>(e.a), "message", e, tid);
      arg("from", e.b);
      arg("bytes", e.c);
      break;
    case kind::send:
      begin("send", "message", 'i', e.start, tid);
      out.text(", \"s\": \"t\"");
      args_begin();
      arg_text("handler", reinterpret_cast<const char*>(e.a));
      arg("to", e.b);
      arg("bytes", e.c);
      break;
  }
  args_end();
}

// Track numbers: named threads are 1, 2, ... in the order they were named
// (a later name of the same thread wins); any other thread that recorded
// gets a number above max_tracks, and a name, as it is met.
class track_numbers {
 public:
  void reset(unsigned named) {
    named_ = named;
    unnamed_count_ = 0;
    last_thread_ = 0;
    last_tid_ = 0;
  }
  unsigned operator()(std::uint64_t thread) {
    if (thread == last_thread_) return last_tid_;
    unsigned tid = 0;
    for (unsigned i = named_; i-- > 0;) {
      if (tracks[i].thread.load(std::memory_order_acquire) == thread) {
        tid = i + 1;
        break;
      }
    }
    for (unsigned i = 0; tid == 0 && i < unnamed_count_; ++i) {
      if (unnamed_[i] == thread) tid = max_tracks + 1 + i;
    }
    if (tid == 0) {
      if (unnamed_count_ == max_unnamed) return max_tracks + max_unnamed;  // shared beyond that
      unnamed_[unnamed_count_] = thread;
      tid = max_tracks + 1 + unnamed_count_++;
      metadata("thread_name", tid, "other thread", static_cast<int>(unnamed_count_), 0);
    }
    last_thread_ = thread;
    last_tid_ = tid;
    return tid;
  }

 private:
  static constexpr unsigned max_unnamed = 256;
  unsigned named_ = 0;
  std::uint64_t unnamed_[max_unnamed] = {};
  unsigned unnamed_count_ = 0;
  std::uint64_t last_thread_ = 0;
  unsigned last_tid_ = 0;
};

track_numbers tid;

}  // namespace

bool write_json(int fd, unsigned node, const char* head, const char* tail) noexcept {
  out.start(fd);
  out_node = node;
  out.text(head);
  const std::uint64_t n = claimed.load(std::memory_order_acquire);
  const std::uint64_t first = n > capacity ? n - capacity : 0;
  metadata("process_name", 0, "node", static_cast<int>(node), first);
  const unsigned named = track_count.load(std::memory_order_acquire) < max_tracks
                             ? track_count.load(std::memory_order_acquire)
                             : max_tracks;
  for (unsigned i = 0; i < named; ++i) {
    if (tracks[i].thread.load(std::memory_order_acquire) != 0) metadata("thread_name", i + 1, tracks[i].name, -1, 0);
  }
  tid.reset(named);
  for (std::uint64_t i = first; i < n; ++i) {
    const slot& s = slots[i % capacity];
    if (s.published.load(std::memory_order_acquire) != i + 1) continue;  // still being written
    const event e = s.e;
    std::atomic_thread_fence(std::memory_order_acquire);
    if (s.published.load(std::memory_order_relaxed) != i + 1) continue;  // overwritten meanwhile
    write_event(e, tid(e.thread));
  }
  out.text(tail);
  return out.finish();
}

}  // namespace dstd::rt::trace::ring
