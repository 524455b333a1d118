// Reading the status pipe: the "J <id>", "S <id> ..." and "L <id>" lines
// nodes write.
//
// Why: these lines (launch_contract.hpp) are how dstdrun tells a node that
// joined from one that never did, and a node that left cleanly from one that
// died. The pipe is shared by every node; lines are shorter than PIPE_BUF so
// they arrive whole, but a read may still end mid-line, so the reader keeps
// the partial line until the rest comes.
#pragma once

#include <string>
#include <vector>

namespace dstd::launch {

struct status_event {
  char kind;  // status_joined, status_stats or status_leaving
  unsigned node;
  std::string text;  // status_stats: the name=value pairs
};

class status_reader {
 public:
  // Takes ownership of `fd` (the non-blocking read end).
  status_reader(int fd, unsigned nodes) : fd_(fd), nodes_(nodes) {}
  ~status_reader();
  status_reader(const status_reader&) = delete;
  status_reader& operator=(const status_reader&) = delete;

  // The descriptor to poll, or -1 once every writer has gone.
  int fd() const { return fd_; }

  // Appends every complete, well-formed line available now to `events`.
  // Lines that do not follow the contract are ignored.
  void drain(std::vector<status_event>& events);

 private:
  void parse_line(const std::string& line, std::vector<status_event>& events) const;

  int fd_;
  unsigned nodes_;
  std::string partial_;
};

}  // namespace dstd::launch
