// The supervision loop; see supervisor.hpp.
#include "runtime/launch/supervisor.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "runtime/common/launch_contract.hpp"
#include "runtime/launch/diag.hpp"
#include "runtime/launch/exit_report.hpp"
#include "runtime/launch/fd_io.hpp"

namespace dstd::launch {

namespace {

using std::chrono::milliseconds;

// Nodes leave by themselves within this long after node 0 has exited.
constexpr auto wind_down_grace = std::chrono::seconds(2);
// Stopping: SIGTERM, then SIGKILL after kill_delay, give up after give_up_delay.
constexpr auto kill_delay = std::chrono::seconds(1);
constexpr auto give_up_delay = std::chrono::seconds(2);
// After SIGKILL at the end of winding down, how long reaping may take.
constexpr auto reap_after_kill = std::chrono::seconds(1);
// The nodes time their own rendezvous with the same join timeout and name
// the peer they miss; dstdrun's own deadline comes this much later so that
// their more precise message wins when both would fire.
constexpr auto join_grace = std::chrono::seconds(1);
// A remote node's rsh exit and its lifeline's end wait this long for each
// other (see supervisor.hpp).
constexpr auto remote_settle = std::chrono::milliseconds(500);

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(s));
}

}  // namespace

supervisor::supervisor(const supervisor_config& config, launch_signals& signals,
                       status_reader& status)
    : config_(config), signals_(signals), status_(status), start_(clock::now()) {
  join_deadline_ = start_ + seconds(config_.join_timeout_s) + join_grace;
  if (config_.timeout_s > 0) run_deadline_ = start_ + seconds(config_.timeout_s);
}

void supervisor::add_node(pid_t pid, int out_fd, int err_fd, const std::string& remote_host) {
  const auto id = static_cast<unsigned>(nodes_.size());
  node& n = nodes_.emplace_back();
  n.pid = pid;
  n.host = remote_host;
  n.out_fd = out_fd;
  n.err_fd = err_fd;
  const std::string prefix = config_.tag_output ? "[node " + std::to_string(id) + "] " : "";
  n.out_lines = std::make_unique<line_forwarder>(prefix, 1);
  n.err_lines = std::make_unique<line_forwarder>(prefix, 2);
  ++alive_;
}

void supervisor::start_failed(unsigned id, const std::string& remote_host, int err) {
  const std::string where = remote_host.empty() ? "" : " (host " + remote_host + ")";
  say("cannot start node %u%s: %s; stopping the %u %s already started", id, where.c_str(),
      std::strerror(err), alive_, nodes_word(alive_));
  exit_status_ = 1;
  begin_stop();
}

int supervisor::run() {
  std::vector<pollfd> fds;
  while (alive_ > 0 && !gave_up_) {
    check_deadlines(clock::now());
    if (alive_ == 0 || gave_up_) break;

    fds.clear();
    fds.push_back({signals_.fd(), POLLIN, 0});
    status_.poll_fds(fds);
    for (node& n : nodes_) {
      if (n.out_fd >= 0) fds.push_back({n.out_fd, POLLIN, 0});
      if (n.err_fd >= 0) fds.push_back({n.err_fd, POLLIN, 0});
    }
    const int ready = poll(fds.data(), fds.size(), poll_timeout_ms(clock::now()));
    if (ready < 0 && errno != EINTR && phase_ != phase::stopping) {
      say("poll failed: %s; stopping %u %s", std::strerror(errno), alive_, nodes_word(alive_));
      exit_status_ = 1;
      begin_stop();
    }

    const launch_signals::pending sig = signals_.read_pending();
    if (sig.interrupt != 0) on_interrupt(sig.interrupt);
    drain_status();
    if (ready > 0) drain_output(0);  // one read per pipe
    reap();
    settle_remote(clock::now());
  }
  finish_output();
  report_stats();
  return exit_status_;
}

int supervisor::poll_timeout_ms(clock::time_point now) const {
  clock::time_point next = clock::time_point::max();
  auto consider = [&](clock::time_point t) {
    if (t < next) next = t;
  };
  if (config_.timeout_s > 0 && phase_ != phase::stopping) consider(run_deadline_);
  if (phase_ == phase::running && joined_ < nodes_.size()) consider(join_deadline_);
  if (phase_ == phase::winding_down) consider(wind_down_deadline_);
  if (phase_ == phase::stopping) {
    if (!killed_) consider(kill_at_);
    consider(give_up_at_);
  }
  for (const node& n : nodes_)
    if (n.judge_pending || (n.link_lost && !n.reaped)) consider(n.settle_at);
  consider(status_.hello_deadline());
  if (next == clock::time_point::max()) return -1;
  if (next <= now) return 0;
  // Round up so that we wake at or after the deadline, never just before.
  const auto ms = std::chrono::ceil<milliseconds>(next - now).count();
  return ms > 60'000 ? 60'000 : static_cast<int>(ms);
}

void supervisor::check_deadlines(clock::time_point now) {
  if (phase_ != phase::stopping && config_.timeout_s > 0 && now >= run_deadline_) {
    say("timeout after %g s; stopping %u %s", config_.timeout_s, alive_, nodes_word(alive_));
    exit_status_ = exit_timeout_status;
    begin_stop();
    return;
  }
  switch (phase_) {
    case phase::running:
      if (joined_ < nodes_.size() && now >= join_deadline_) {
        for (unsigned id = 0; id < nodes_.size(); ++id) {
          const node& n = nodes_[id];
          if (!n.joined && !n.reaped)
            say("%s did not join within %g s", label(id).c_str(), config_.join_timeout_s);
        }
        exit_status_ = 1;
        begin_stop();
      }
      break;
    case phase::winding_down:
      if (now >= wind_down_deadline_) {
        for (unsigned id = 0; id < nodes_.size(); ++id) {
          if (nodes_[id].reaped) continue;
          stop_node(id, SIGKILL);
          say("%s did not stop after the program ended; killed it", label(id, false).c_str());
        }
        phase_ = phase::stopping;
        killed_ = true;
        give_up_at_ = now + reap_after_kill;
      }
      break;
    case phase::stopping:
      if (!killed_ && now >= kill_at_) {
        kill_remaining(SIGKILL);
        killed_ = true;
      }
      if (now >= give_up_at_) {
        for (unsigned id = 0; id < nodes_.size(); ++id) {
          if (!nodes_[id].reaped)
            say("%s did not end even after SIGKILL; leaving it behind", label(id).c_str());
        }
        gave_up_ = true;
      }
      break;
  }
}

void supervisor::on_interrupt(int sig) {
  if (phase_ == phase::stopping) {  // interrupted again: do not wait for SIGTERM
    if (!killed_) kill_remaining(SIGKILL);
    killed_ = true;
    return;
  }
  say("interrupted; stopping %u %s", alive_, nodes_word(alive_));
  exit_status_ = 128 + sig;
  begin_stop();
}

void supervisor::drain_status() {
  std::vector<status_event> events;
  status_.drain(events);
  for (const status_event& e : events) {
    if (e.node >= nodes_.size()) continue;
    node& n = nodes_[e.node];
    if (e.kind == status_joined && !n.joined) {
      n.joined = true;
      ++joined_;
    } else if (e.kind == status_leaving) {
      n.left = true;
    } else if (e.kind == status_stats) {
      if (auto fields = parse_stats_fields(e.text)) n.stats = std::move(*fields);
    } else if (e.kind == status_link_up) {
      n.link_open = true;
    } else if (e.kind == status_link_closed || e.kind == status_link_failed) {
      n.link_open = false;
      if (!n.left) {
        n.link_lost = true;
        n.link_failed = e.kind == status_link_failed;
        n.link_why = e.text;
        if (!n.reaped) n.settle_at = clock::now() + remote_settle;
      }
    }
  }
}

void supervisor::reap() {
  struct ended {
    unsigned id;
    int status;
  };
  std::vector<ended> exits;
  for (;;) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid < 0 && errno == EINTR) continue;
    if (pid <= 0) break;
    for (unsigned id = 0; id < nodes_.size(); ++id) {
      if (nodes_[id].pid == pid && !nodes_[id].reaped) {
        nodes_[id].reaped = true;
        --alive_;
        exits.push_back({id, status});
      }
    }
  }
  if (exits.empty()) return;
  // A node writes "L" (and its last output) before it exits, so once it is
  // reaped all of that is in the pipes: read it before judging the exit.
  drain_status();
  drain_output(1 << 20);
  for (const ended& e : exits) {
    node& n = nodes_[e.id];
    if (n.host.empty() || !n.link_open) {
      judge_exit(e.id, e.status);
    } else {  // its lifeline may still bring its last lines
      n.judge_pending = true;
      n.wait_status = e.status;
      n.settle_at = clock::now() + remote_settle;
    }
  }
}

// Remote nodes whose rsh exited (judged once the lifeline ended too, or
// after remote_settle), and lifelines lost while the rsh still runs.
void supervisor::settle_remote(clock::time_point now) {
  for (unsigned id = 0; id < nodes_.size(); ++id) {
    node& n = nodes_[id];
    if (n.judge_pending && (!n.link_open || now >= n.settle_at)) {
      n.judge_pending = false;
      judge_exit(id, n.wait_status);
    } else if (n.link_lost && !n.reaped && now >= n.settle_at) {
      n.link_lost = false;  // said once
      if (phase_ != phase::running) continue;  // stopping, or leaving after the program
      report_failure(id, n.link_why);
      exit_status_ = 1;
      begin_stop();
    }
  }
}

void supervisor::judge_exit(unsigned id, int wait_status) {
  if (phase_ == phase::stopping) return;  // stopped by us, or after the first failure
  const node& n = nodes_[id];
  const bool normal = WIFEXITED(wait_status);
  const int code = normal ? WEXITSTATUS(wait_status) : -1;

  if (!n.joined) {
    std::string detail = " before joining";
    if (normal && code == 0) detail += " (is " + config_.program + " linked with libdstd?)";
    // What ssh and sh say with these (a remote node's status is its rsh's).
    if (!n.host.empty() && normal && code == 255)
      detail += " (status 255: could '" + config_.rsh + "' reach " + n.host +
                " and log in without a password?)";
    if (!n.host.empty() && normal && code == 127)
      detail += " (status 127: is " + config_.program_path + " there, at the same path?)";
    fail(id, wait_status, detail);
    return;
  }
  if (phase_ == phase::running) {
    if (id == 0) {
      // Node 0 says "L" once it has told the other nodes the program is
      // over (boot.cpp end_run). Without it they were never told: a fatal
      // error (its own message names it) or an _exit. Stop them now.
      if (!normal || (code != 0 && !n.left)) {
        fail(id, wait_status, "");
      } else if (!n.left) {
        exit_status_ = code;
        begin_stop();
      } else {
        program_over(code);
      }
    } else if (!normal || code != 0) {
      fail(id, wait_status, "");
    } else if (!n.left) {
      fail(id, wait_status, " while the program was still running");
    }
    return;
  }
  // winding_down: leaving without "L" is fine now, failing is not.
  if (!normal || code != 0) {
    const int program_status = exit_status_;
    fail(id, wait_status, " after the program ended");
    if (program_status != 0) exit_status_ = program_status;
  }
}

void supervisor::fail(unsigned id, int wait_status, const std::string& detail) {
  std::string what = describe_end(wait_status) + detail;
  // A node that lost its lifeline ends itself: say why it ended.
  if (nodes_[id].link_failed) what += " after it " + nodes_[id].link_why;
  report_failure(id, what);
  exit_status_ = failure_exit_status(wait_status);
  begin_stop();
}

void supervisor::report_failure(unsigned id, const std::string& what) {
  // Another node still counted alive is this one when its rsh lives on.
  const unsigned others = alive_ - (nodes_[id].reaped ? 0 : 1);
  if (others == 0)
    say("%s %s", label(id).c_str(), what.c_str());
  else
    say("%s %s; stopping the other %u %s", label(id).c_str(), what.c_str(), others,
        nodes_word(others));
}

std::string supervisor::label(unsigned id, bool with_pid) const {
  const node& n = nodes_[id];
  const std::string name = "node " + std::to_string(id);
  if (!n.host.empty()) return name + " (host " + n.host + ")";
  return with_pid ? name + " (pid " + std::to_string(n.pid) + ")" : name;
}

void supervisor::stop_node(unsigned id, int sig) {
  node& n = nodes_[id];
  if (!n.host.empty()) {
    status_.close_link(id);
    n.link_open = false;
  }
  kill(n.pid, sig);
}

void supervisor::program_over(int status) {
  exit_status_ = status;
  phase_ = phase::winding_down;
  wind_down_deadline_ = clock::now() + wind_down_grace;
}

void supervisor::begin_stop() {
  if (phase_ == phase::stopping) return;
  phase_ = phase::stopping;
  const auto now = clock::now();
  kill_at_ = now + kill_delay;
  give_up_at_ = now + give_up_delay;
  killed_ = false;
  kill_remaining(SIGTERM);
}

void supervisor::kill_remaining(int sig) {
  for (unsigned id = 0; id < nodes_.size(); ++id)
    if (!nodes_[id].reaped) stop_node(id, sig);
}

bool supervisor::read_output(int& fd, line_forwarder& lines) {
  char buf[64 * 1024];
  for (;;) {
    const ssize_t got = read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got > 0) {
      lines.feed(buf, static_cast<std::size_t>(got));
      return true;
    }
    if (got < 0 && errno == EAGAIN) return false;
    lines.flush();  // EOF (or an error): the stream is over
    close(fd);
    fd = -1;
    return false;
  }
}

void supervisor::drain_output(std::size_t budget) {
  // Up to `budget` 64 KiB reads per pipe: bounded even if a node (or a
  // process it started) writes without pause.
  for (node& n : nodes_) {
    for (std::size_t k = 0; k < budget / (64 * 1024) + 1 && n.out_fd >= 0; ++k)
      if (!read_output(n.out_fd, *n.out_lines)) break;
    for (std::size_t k = 0; k < budget / (64 * 1024) + 1 && n.err_fd >= 0; ++k)
      if (!read_output(n.err_fd, *n.err_lines)) break;
  }
}

// After the nodes' own output: the table on stderr, or the JSON file.
void supervisor::report_stats() {
  if (!config_.stats) return;
  std::vector<node_stats_row> rows;
  for (unsigned id = 0; id < nodes_.size(); ++id) rows.push_back({id, nodes_[id].stats});
  if (!config_.stats_json.empty()) {
    if (!write_text_file(config_.stats_json, stats_json(rows))) {
      say("cannot write the statistics to %s: %s", config_.stats_json.c_str(), std::strerror(errno));
      if (exit_status_ == 0) exit_status_ = 1;
    }
    return;
  }
  const std::string table = stats_table(rows);
  if (table.empty()) {
    say("no node reported its counters (a node that fails does not)");
    return;
  }
  write_all(2, table.data(), table.size());
}

void supervisor::finish_output() {
  drain_output(1 << 20);
  for (node& n : nodes_) {
    n.out_lines->flush();
    n.err_lines->flush();
    if (n.out_fd >= 0) close(n.out_fd);
    if (n.err_fd >= 0) close(n.err_fd);
    n.out_fd = n.err_fd = -1;
  }
}

}  // namespace dstd::launch
