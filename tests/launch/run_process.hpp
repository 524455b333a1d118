// Running a program (dstdrun) as a child and collecting what it did.
//
// Why: the launcher tests check dstdrun from the outside, as a user sees it:
// exit status, what it printed on stdout and stderr, and how long it took.
// The child is always bounded: it is killed after `limit_s`, so a dstdrun
// bug fails the test instead of hanging it.
#pragma once

#include <string>
#include <vector>

namespace dstd::test {

struct run_result {
  int exit_code = -1;    // when it exited normally
  int term_signal = 0;   // when a signal ended it
  bool timed_out = false;  // we killed it after limit_s
  double seconds = 0;      // from start until it ended
  std::string out;
  std::string err;
};

struct run_options {
  double limit_s = 30;
  std::vector<std::string> env;  // extra "NAME=value" entries
  int signal = 0;                // send this signal to the child ...
  double signal_after_s = 0;     // ... this long after the start
};

run_result run_process(const std::vector<std::string>& argv, const run_options& options = {});

}  // namespace dstd::test
