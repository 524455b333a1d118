// Reading the nodes' status lines: "J <id>", "S <id> ..." and "L <id>".
//
// Why: these lines (launch_contract.hpp) are how dstdrun tells a node that
// joined from one that never did, and a node that left cleanly from one that
// died. They come from two kinds of source, decoded by the one parser here:
//   - the status pipe, shared by every local node; lines are shorter than
//     PIPE_BUF so they arrive whole, but a read may still end mid-line, so
//     each source keeps its partial line until the rest comes;
//   - a TCP connection per remote node (its lifeline), accepted here from
//     the lifeline listener. Its first line must be "<token> <id>" with the
//     run's token, else the connection is dropped (and said); after it, only
//     lines about that node count. Its end is reported as an event: without
//     "L" before it, that node is dead.
#pragma once

#include <poll.h>

#include <chrono>
#include <string>
#include <vector>

namespace dstd::launch {

// Event kinds beside the contract's status_joined/_stats/_leaving.
inline constexpr char status_link_up = '+';      // node's lifeline connected
inline constexpr char status_link_closed = '-';  // ... closed by the node (text: why)
inline constexpr char status_link_failed = '!';  // ... failed: keepalive, reset (text: why)

struct status_event {
  char kind;
  unsigned node;
  std::string text;  // status_stats: the name=value pairs; link_closed: why
};

class status_reader {
 public:
  // Takes ownership of `pipe_fd` (the non-blocking read end, or -1).
  status_reader(int pipe_fd, unsigned nodes);
  ~status_reader();
  status_reader(const status_reader&) = delete;
  status_reader& operator=(const status_reader&) = delete;

  // Also accepts lifelines on `listen_fd` (owned from now on) whose hello
  // carries `token`.
  void accept_links(int listen_fd, std::string token);

  // Appends what to poll: the pipe while it has writers, the listener, and
  // every connection.
  void poll_fds(std::vector<pollfd>& fds) const;

  // Accepts waiting connections and appends every complete, well-formed line
  // available now to `events`. Lines that do not follow the contract are
  // ignored.
  void drain(std::vector<status_event>& events);

  // When the oldest unnamed connection must have said who it is (drain
  // drops it then), or time_point::max().
  std::chrono::steady_clock::time_point hello_deadline() const;

  // dstdrun ends node `node`'s lifeline (the node then ends itself).
  void close_link(unsigned node);

 private:
  using clock = std::chrono::steady_clock;
  struct source {
    int fd = -1;
    int node = -1;  // a connection's node once its hello was right
    bool link = false;
    std::string peer;  // a connection's remote address, for messages
    clock::time_point since;
    std::string partial;
  };

  void accept_waiting();
  // Reads all `s` has; false when it ended (and was closed).
  bool read_source(source& s, std::vector<status_event>& events);
  // One complete line from `s`; false when the connection must be dropped.
  bool take_line(source& s, const std::string& line, std::vector<status_event>& events);
  void parse_line(const std::string& line, int only_node, std::vector<status_event>& events) const;
  bool check_hello(source& s, const std::string& line, std::vector<status_event>& events);
  void drop_silent_connections(clock::time_point now);

  unsigned nodes_;
  int listen_fd_ = -1;
  std::string token_;
  std::vector<source> sources_;  // [0] is the pipe
  std::vector<bool> linked_;     // a node's lifeline was accepted (once only)
};

}  // namespace dstd::launch
