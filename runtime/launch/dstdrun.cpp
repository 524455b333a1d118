// dstdrun: starts the nodes of a dstd program on this host (or on the hosts
// of --hosts, through --rsh) and supervises them (see docs/DESIGN.md, §8).
//
// Why this file is short: each step has a file of its own (options,
// node_process, supervisor, ...). main only wires them together in order:
// parse the command line, create the shm segments (or listen for the
// nodes' wire-up and lifelines), block the watched signals, start every
// node, then supervise until the run is over.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "runtime/common/launch_contract.hpp"
#include "runtime/launch/diag.hpp"
#include "runtime/launch/dstd_linkage.hpp"
#include "runtime/launch/fd_io.hpp"
#include "runtime/launch/host_list.hpp"
#include "runtime/launch/launch_token.hpp"
#include "runtime/launch/launcher_address.hpp"
#include "runtime/launch/launch_signals.hpp"
#include "runtime/launch/node_process.hpp"
#include "runtime/launch/options.hpp"
#include "runtime/launch/status_reader.hpp"
#include "runtime/launch/supervisor.hpp"
#include "runtime/launch/tcp_listen.hpp"
#include "runtime/launch/trace_merge.hpp"
#include "runtime/launch/wireup_server.hpp"
#include "runtime/transport/shm/shm_segments.hpp"

namespace {

using namespace dstd::launch;

// A pipe whose ends dstdrun keeps close-on-exec; the read end non-blocking.
bool make_pipe(int (&p)[2]) {
  if (pipe2(p, O_CLOEXEC) != 0) return false;
  set_nonblocking(p[0]);
  return true;
}

// A program that does not link libdstd would run N times, each copy on its
// own: refuse it before any copy starts, and say how to fix the build.
bool is_runnable_dstd_program(const launch_options& opt) {
  static constexpr const char* how_to_link =
      "link it with -ldstd (CMake: target_link_libraries(app PRIVATE dstd::dstd))";
  switch (find_dstd_linkage(opt.program_path)) {
    case dstd_linkage::shared:
    case dstd_linkage::unknown: return true;
    case dstd_linkage::none:
      say("%s is not a dstd program: it does not link libdstd (no libdstd.so among the "
          "libraries it needs); %s",
          opt.program.c_str(), how_to_link);
      return false;
    case dstd_linkage::static_lib:
      if (opt.nodes == 1) return true;
      say("%s links libdstd statically (libdstd.a), which runs on one node only; to run it on "
          "%u nodes, %s",
          opt.program.c_str(), opt.nodes, how_to_link);
      return false;
  }
  return true;
}

// The host of node `id` when it runs elsewhere (through --rsh), else "".
std::string remote_host(const launch_options& opt, unsigned id) {
  if (id >= opt.node_hosts.size() || is_local_host(opt.node_hosts[id])) return "";
  return opt.node_hosts[id];
}

// Remote nodes run PROGRAM by its absolute path in dstdrun's working
// directory, and connect back to dstdrun at `address`: a listener for their
// lifelines, and the run's token. False with a message printed.
bool prepare_remote_nodes(const std::string& address, status_reader& status, node_launch& how) {
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd) == nullptr) {
    say("cannot find the working directory for the remote nodes: %s", std::strerror(errno));
    return false;
  }
  how.cwd = cwd;
  if (how.program_path[0] != '/') how.program_path = how.cwd + "/" + how.program_path;
  unsigned port = 0;
  std::string error;
  const int fd = listen_tcp(address, port, error);
  if (fd < 0) {
    say("the remote nodes' lifelines: %s", error.c_str());
    return false;
  }
  if (!make_launch_token(how.launch_token)) {
    say("cannot read /dev/urandom for the run's token: %s", std::strerror(errno));
    close(fd);
    return false;
  }
  how.launch_addr = address + ":" + std::to_string(port);
  status.accept_links(fd, how.launch_token);
  return true;
}

int launch(const launch_options& opt) {
  const bool shm = opt.transport == "shm";
  dstd::rt::shm::segment_fds segments;
  if (shm && !dstd::rt::shm::create_segments(opt.nodes, opt.partition_bytes, segments)) {
    say("cannot create the shared-memory segments for %u %s: %s", opt.nodes,
        nodes_word(opt.nodes), std::strerror(errno));
    return 1;
  }
  // Only the nodes get them; each node clears the flag on its own copy.
  if (shm) {
    set_cloexec(segments.control_fd, true);
    set_cloexec(segments.heap_fd, true);
  }
  bool any_remote = false;
  for (unsigned id = 0; id < opt.nodes; ++id) any_remote |= !remote_host(opt, id).empty();
  std::string address;
  std::string error;
  if (!choose_launcher_address(opt.launcher_address, opt.node_hosts, address, error)) {
    say("%s", error.c_str());
    return 1;
  }
  // A network transport's nodes exchange their addresses through dstdrun.
  wireup_server wireup;
  if (!shm && !wireup.listen(address)) return 1;

  int status_pipe[2];
  if (!make_pipe(status_pipe)) {
    say("cannot create the status pipe: %s", std::strerror(errno));
    return 1;
  }
  int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);

  launch_signals signals;
  if (!signals.setup()) {
    say("cannot set up signal handling: %s", std::strerror(errno));
    return 1;
  }

  if (!shm) wireup.start(opt.nodes);  // after the signal mask: the thread inherits it
  status_reader status(status_pipe[0], opt.nodes);
  node_launch how;
  how.program = opt.program;
  how.program_path = opt.program_path;
  how.args = opt.args;
  how.nodes = opt.nodes;
  how.partition_bytes = opt.partition_bytes;
  how.join_timeout_ms = static_cast<std::uint64_t>(std::ceil(opt.join_timeout_s * 1000));
  how.transport = opt.transport;
  how.status_write_fd = status_pipe[1];
  how.control_fd = segments.control_fd;
  how.heap_fd = segments.heap_fd;
  how.wireup_address = wireup.address();
  how.devnull_fd = devnull;
  how.output_to_tty = isatty(STDOUT_FILENO) == 1;
  how.launcher_pid = getpid();
  how.rsh = opt.rsh;
  if (any_remote && !prepare_remote_nodes(address, status, how)) return 1;

  const supervisor_config config{.program = opt.program,
                                 .program_path = how.program_path,
                                 .rsh = opt.rsh,
                                 .timeout_s = opt.timeout_s,
                                 .join_timeout_s = opt.join_timeout_s,
                                 .tag_output = opt.tag_output,
                                 .stats = opt.stats,
                                 .stats_json = opt.stats_json};
  supervisor sup(config, signals, status);

  for (unsigned id = 0; id < opt.nodes; ++id) {
    const std::string host = remote_host(opt, id);
    int out[2] = {-1, -1};
    int err[2] = {-1, -1};
    if (!make_pipe(out) || !make_pipe(err)) {
      const int e = errno;
      close_fd(out[0]);
      close_fd(out[1]);
      sup.start_failed(id, host, e);
      break;
    }
    const pid_t pid = start_node(how, id, host, node_output{out[1], err[1]});
    const int fork_errno = errno;
    close_fd(out[1]);
    close_fd(err[1]);
    if (pid < 0) {
      close_fd(out[0]);
      close_fd(err[0]);
      sup.start_failed(id, host, fork_errno);
      break;
    }
    sup.add_node(pid, out[0], err[0], host);
  }

  // From here on only the nodes hold these.
  close_fd(status_pipe[1]);
  close_fd(segments.control_fd);
  close_fd(segments.heap_fd);
  close_fd(devnull);

  const int exit_status = sup.run();
  if (!opt.trace.empty() && !merge_trace(opt.trace, opt.nodes)) return exit_status == 0 ? 1 : exit_status;
  return exit_status;
}

}  // namespace

int main(int argc, char** argv) {
  ensure_standard_fds();
  launch_options opt;
  switch (parse_options(argc, argv, std::getenv("DSTD_PARTITION_GB"), opt)) {
    case parse_outcome::exit_ok: return 0;
    case parse_outcome::exit_usage: return exit_usage_status;
    case parse_outcome::run: break;
  }
  if (!is_runnable_dstd_program(opt)) return exit_usage_status;
  if (!opt.stats_json.empty() && !write_text_file(opt.stats_json, "")) {  // fail now, not after the run
    say("cannot write the statistics file %s: %s", opt.stats_json.c_str(), std::strerror(errno));
    return exit_usage_status;
  }
  if (!opt.trace.empty() && !write_text_file(opt.trace, "")) {
    say("cannot write the trace file %s: %s", opt.trace.c_str(), std::strerror(errno));
    return exit_usage_status;
  }
  if (opt.stats) setenv(dstd::launch::env_stats, "1", 1);  // the nodes inherit it
  if (opt.launcher_address.empty()) {
    if (const char* a = std::getenv("DSTD_LAUNCHER_ADDRESS")) opt.launcher_address = a;
  }
  // dstdrun owns DSTD_TRACE: parts no one would merge are never written.
  if (opt.trace.empty()) {
    unsetenv(dstd::launch::env_trace);
  } else {
    setenv(dstd::launch::env_trace, opt.trace.c_str(), 1);
  }
  return launch(opt);
}
