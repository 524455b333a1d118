// Internal to the trace (trace.hpp): the ring of events and the track
// names, shared by the recorder (trace.cpp) and the JSON writer
// (trace_json.cpp).
#pragma once

#include <atomic>
#include <cstdint>

#include "runtime/common/trace.hpp"

namespace dstd::rt::trace::ring {

struct event {
  std::uint64_t start, end, thread, a, b, c;
  kind what;
};

struct slot {
  std::atomic<std::uint64_t> published;  // its event's number + 1, once filled
  event e;
};

extern slot* slots;
extern std::uint64_t capacity;
extern std::atomic<std::uint64_t> claimed;  // events recorded so far (the next one's number)

struct track {
  std::atomic<std::uint64_t> thread{0};  // pthread_self() of its thread, once named
  char name[48] = {};
};
inline constexpr unsigned max_tracks = 1024;  // workers come and go; later names win
extern track tracks[max_tracks];
extern std::atomic<unsigned> track_count;

// Writes the ring as Chrome trace event objects (",\n" between them) to
// fd, between `head` and `tail`; node `node` is the process. Safe in a
// signal handler: no allocation, no locks, only write(). False on a write
// error (errno set).
bool write_json(int fd, unsigned node, const char* head, const char* tail) noexcept;

}  // namespace dstd::rt::trace::ring
