// See run_process.hpp.
#include "run_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>

namespace dstd::test {

namespace {

using clock_type = std::chrono::steady_clock;

double since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

[[noreturn]] void exec_child(const std::vector<std::string>& argv, const run_options& options,
                             int out_fd, int err_fd) {
  // A deterministic start: whatever the test runner ignores or blocks,
  // dstdrun must see its signals as a user's shell would give them.
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE}) std::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);

  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, 0);
  dup2(out_fd, 1);
  dup2(err_fd, 2);
  for (const std::string& e : options.env) putenv(const_cast<char*>(e.c_str()));
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  const char msg[] = "run_process: exec failed\n";
  ssize_t ignored = write(2, msg, sizeof msg - 1);
  (void)ignored;
  _exit(127);
}

}  // namespace

run_result run_process(const std::vector<std::string>& argv, const run_options& options) {
  run_result r;
  int out[2];
  int err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    r.err = "run_process: pipe failed";
    return r;
  }
  const auto t0 = clock_type::now();
  const pid_t pid = fork();
  if (pid == 0) exec_child(argv, options, out[1], err[1]);
  close(out[1]);
  close(err[1]);
  if (pid < 0) {
    close(out[0]);
    close(err[0]);
    r.err = "run_process: fork failed";
    return r;
  }

  int fds[2] = {out[0], err[0]};
  std::string* sinks[2] = {&r.out, &r.err};
  bool reaped = false;
  bool signalled = false;
  double reaped_at = 0;
  int status = 0;
  // Read until the child is gone and its output closed. Output held open by
  // a process the child left behind gets 3 s more, then we stop reading.
  while (!(reaped && fds[0] < 0 && fds[1] < 0)) {
    const double now = since(t0);
    if (!reaped && now >= options.limit_s) {
      kill(pid, SIGKILL);
      r.timed_out = true;
    }
    if (reaped && now >= reaped_at + 3) break;
    if (!signalled && options.signal != 0 && now >= options.signal_after_s) {
      kill(pid, options.signal);
      signalled = true;
    }
    pollfd p[2];
    nfds_t n = 0;
    for (int fd : fds)
      if (fd >= 0) p[n++] = {fd, POLLIN, 0};
    poll(p, n, 20);
    for (int k = 0; k < 2; ++k) {
      if (fds[k] < 0) continue;
      char buf[8192];
      pollfd one{fds[k], POLLIN, 0};
      if (poll(&one, 1, 0) <= 0) continue;
      const ssize_t got = read(fds[k], buf, sizeof buf);
      if (got > 0) {
        sinks[k]->append(buf, static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        close(fds[k]);
        fds[k] = -1;
      }
    }
    if (!reaped && waitpid(pid, &status, WNOHANG) == pid) {
      reaped = true;
      reaped_at = since(t0);
      r.seconds = reaped_at;
    }
  }
  for (int fd : fds)
    if (fd >= 0) close(fd);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
  return r;
}

}  // namespace dstd::test
