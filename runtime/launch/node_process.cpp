// Fork and exec of one node; see node_process.hpp.
#include "runtime/launch/node_process.hpp"

#include <sys/personality.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstdarg>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string_view>

#include "runtime/common/launch_contract.hpp"
#include "runtime/launch/fd_io.hpp"
#include "runtime/launch/launch_signals.hpp"
#include "runtime/launch/remote_command.hpp"

extern char** environ;

namespace dstd::launch {

namespace {

constexpr const char* contract_vars[] = {
    env_node_id,       env_node_count,   env_transport,   env_partition_bytes,
    env_join_timeout_ms, env_launch_fd,  env_shm_control_fd, env_shm_heap_fd,
    env_output_to_tty, env_wireup,       env_launch_addr, env_launch_token,
    env_host,
};

bool is_contract_var(std::string_view entry) {
  for (const char* name : contract_vars) {
    const std::string_view n(name);
    if (entry.size() > n.size() && entry.substr(0, n.size()) == n && entry[n.size()] == '=')
      return true;
  }
  return false;
}

// dstdrun's environment minus any stale contract variables (those of
// `only_prefixes` only, when given).
std::vector<std::string> passed_environment(std::initializer_list<std::string_view> only_prefixes) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    bool wanted = only_prefixes.size() == 0;
    for (std::string_view p : only_prefixes) wanted = wanted || entry.substr(0, p.size()) == p;
    if (wanted && !is_contract_var(entry)) env.emplace_back(entry);
  }
  return env;
}

// The contract variables of node `id` (launch_contract.hpp), after `env`.
void add_contract(std::vector<std::string>& env, const node_launch& l, unsigned id,
                  const std::string& remote_host) {
  auto add = [&](const char* name, const std::string& value) {
    env.push_back(std::string(name) + "=" + value);
  };
  add(env_node_id, std::to_string(id));
  add(env_node_count, std::to_string(l.nodes));
  add(env_transport, l.transport);
  add(env_partition_bytes, std::to_string(l.partition_bytes));
  add(env_join_timeout_ms, std::to_string(l.join_timeout_ms));
  if (remote_host.empty()) {
    add(env_launch_fd, std::to_string(l.status_write_fd));
    if (l.control_fd >= 0) add(env_shm_control_fd, std::to_string(l.control_fd));
    if (l.heap_fd >= 0) add(env_shm_heap_fd, std::to_string(l.heap_fd));
  } else {
    add(env_launch_addr, l.launch_addr);
    add(env_launch_token, l.launch_token);
    add(env_host, remote_host);
  }
  if (!l.wireup_address.empty()) add(env_wireup, l.wireup_address);
  add(env_output_to_tty, l.output_to_tty ? "1" : "0");
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> p;
  p.reserve(strings.size() + 1);
  for (auto& s : strings) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

// Like say(), for the child: one write, no allocation.
void child_say(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void child_say(const char* fmt, ...) {
  char buf[512];
  std::va_list ap;
  va_start(ap, fmt);
  const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0) write_all(2, buf, std::min(static_cast<std::size_t>(n), sizeof buf - 1));
}

// Runs in the child between fork and exec; never returns. `remote`: the
// child is the rsh process, which gets none of the node's descriptors.
[[noreturn]] void become_node(const node_launch& l, unsigned id, bool remote, node_output output,
                              const char* path, char* const* argv, char* const* envp) {
  launch_signals::reset_in_child();

  // Die with dstdrun. If dstdrun died before prctl took effect, we already
  // have a new parent and must not run on alone.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != l.launcher_pid) _exit(1);

  const int persona = personality(0xffffffff);
  if (!remote && std::getenv(env_test_keep_aslr) == nullptr &&
      (persona == -1 || personality(static_cast<unsigned long>(persona) | ADDR_NO_RANDOMIZE) == -1))
    child_say("dstdrun: warning: node %u: cannot turn off address-space randomization: %s\n",
              id, std::strerror(errno));

  if (id != 0 && l.devnull_fd >= 0) dup2(l.devnull_fd, 0);
  if (output.out_fd >= 0) dup2(output.out_fd, 1);
  if (output.err_fd >= 0) dup2(output.err_fd, 2);
  if (!remote) {
    set_cloexec(l.status_write_fd, false);
    set_cloexec(l.control_fd, false);
    set_cloexec(l.heap_fd, false);
  }

  if (remote) {
    execvpe(path, argv, envp);  // rsh is searched in PATH
  } else {
    execve(path, argv, envp);
  }
  child_say("dstdrun: cannot run %s: %s\n", remote ? path : l.program.c_str(),
            std::strerror(errno));
  _exit(127);
}

}  // namespace

pid_t start_node(const node_launch& launch, unsigned id, const std::string& host,
                 node_output output) {
  // Everything that allocates happens before fork.
  const bool remote = !host.empty();
  std::vector<std::string> args = launch.args;
  std::vector<std::string> env = passed_environment({});
  if (remote) {
    // The rsh process gets dstdrun's environment; the node, over there, the
    // contract and the user's dstd and UCX settings.
    std::vector<std::string> node_env = passed_environment({"DSTD_", "UCX_"});
    add_contract(node_env, launch, id, host);
    args = remote_argv(launch.rsh, host, node_env, launch.cwd, launch.program_path, launch.args);
  } else {
    add_contract(env, launch, id, "");
  }
  std::vector<char*> argv = pointers(args);
  std::vector<char*> envp = pointers(env);
  const std::string path = remote ? args[0] : launch.program_path;

  const pid_t pid = fork();
  if (pid == 0) become_node(launch, id, remote, output, path.c_str(), argv.data(), envp.data());
  return pid;
}

}  // namespace dstd::launch
