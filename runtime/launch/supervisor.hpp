// Watching the nodes of one run until it is over, and deciding its outcome.
//
// Why: this is where dstdrun keeps its promise that a run never hangs and
// never fails silently. One thread polls the status pipe, the nodes' output
// pipes and a signalfd, with every wait bounded by a deadline:
//
//   running       until node 0 exits. A node that dies, exits early or never
//                 joins is a failure: it is reported (one line), the others
//                 are stopped.
//   winding_down  node 0 exited normally: the program is over. The other
//                 nodes leave on their own within 2 s or are killed.
//   stopping      SIGTERM sent to every node, SIGKILL 1 s later, and after
//                 2 s dstdrun exits whether or not all were reaped.
//
// Only the first failure is reported; nodes dstdrun stops itself are not.
//
// A remote node (--hosts) is its rsh process here and its lifeline
// (status_reader.hpp). Its end is judged once both are over, or
// `remote_settle` after the first of them: the rsh's exit may arrive before
// the lifeline's last lines or after its end (two connections, no order).
// A lifeline that ends without "L" while the rsh lives on is a lost node.
// Stopping a remote node closes its lifeline (the node then ends itself)
// and signals its rsh process. Messages name its host: "node 3 (host h2)".
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "runtime/launch/launch_signals.hpp"
#include "runtime/launch/line_forwarder.hpp"
#include "runtime/launch/stats_report.hpp"
#include "runtime/launch/status_reader.hpp"

namespace dstd::launch {

struct supervisor_config {
  std::string program;       // for messages
  std::string program_path;  // ... about remote nodes: the path they run
  std::string rsh;           // ... and how they were started (--rsh)
  double timeout_s = 0;  // 0: none
  double join_timeout_s = 30;
  bool tag_output = false;  // "[node k] " in front of every line
  bool stats = false;       // --stats: the nodes' counters at the end
  std::string stats_json;   // --stats=json FILE: written there, not printed
};

inline constexpr int exit_timeout_status = 124;

class supervisor {
 public:
  supervisor(const supervisor_config& config, launch_signals& signals, status_reader& status);

  // Registers the next node (ids count up from 0). `out_fd`/`err_fd` are
  // non-blocking read ends of its output pipes; `remote_host` is its host
  // when it runs elsewhere through --rsh, else "".
  void add_node(pid_t pid, int out_fd, int err_fd, const std::string& remote_host = "");

  // Starting node `id` (on `remote_host`, or "") failed: report it and stop
  // the nodes started so far.
  void start_failed(unsigned id, const std::string& remote_host, int err);

  // Supervises until every node is gone (or cannot be reaped in time);
  // returns dstdrun's exit status.
  int run();

 private:
  using clock = std::chrono::steady_clock;
  enum class phase { running, winding_down, stopping };

  struct node {
    pid_t pid = -1;
    bool joined = false;
    bool left = false;
    bool reaped = false;
    int out_fd = -1;
    int err_fd = -1;
    std::unique_ptr<line_forwarder> out_lines;
    std::unique_ptr<line_forwarder> err_lines;
    stats_fields stats;  // its "S" line's counters
    // Remote nodes only.
    std::string host;
    bool link_open = false;
    bool link_lost = false;     // ended without "L"
    bool link_failed = false;   // ... by an error (keepalive, reset), not closed
    std::string link_why;
    bool judge_pending = false;  // reaped, judged at settle_at
    int wait_status = 0;
    clock::time_point settle_at;
  };

  void check_deadlines(clock::time_point now);
  int poll_timeout_ms(clock::time_point now) const;
  void on_interrupt(int sig);
  void drain_status();
  void reap();
  void judge_exit(unsigned id, int wait_status);
  void settle_remote(clock::time_point now);
  void fail(unsigned id, int wait_status, const std::string& detail);
  void report_failure(unsigned id, const std::string& what);
  // "node 3 (pid 123)" (or "node 3"), "node 3 (host h2)" when remote.
  std::string label(unsigned id, bool with_pid = true) const;
  void stop_node(unsigned id, int sig);
  void program_over(int status);
  void begin_stop();
  void kill_remaining(int sig);

  // Output forwarding, in whole lines.
  bool read_output(int& fd, line_forwarder& lines);  // one read; false at EOF
  void drain_output(std::size_t budget);
  void finish_output();
  void report_stats();

  supervisor_config config_;
  launch_signals& signals_;
  status_reader& status_;
  std::vector<node> nodes_;
  unsigned alive_ = 0;
  unsigned joined_ = 0;
  phase phase_ = phase::running;
  int exit_status_ = 0;
  bool killed_ = false;  // SIGKILL already sent while stopping
  bool gave_up_ = false;

  clock::time_point start_;
  clock::time_point join_deadline_;
  clock::time_point run_deadline_;        // only with a timeout
  clock::time_point wind_down_deadline_;  // winding_down
  clock::time_point kill_at_;             // stopping
  clock::time_point give_up_at_;          // stopping
};

}  // namespace dstd::launch
