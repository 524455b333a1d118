// Shared helpers of the dstdrun tests: how to call dstdrun and what to expect.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "run_process.hpp"

namespace dstd::test {

// Runs build/bin/dstdrun with `args`.
inline run_result dstdrun(std::initializer_list<std::string> args, const run_options& o = {}) {
  std::vector<std::string> argv{DSTDRUN_PATH};
  argv.insert(argv.end(), args);
  return run_process(argv, o);
}

inline std::string node_fault() { return NODE_FAULT_PATH; }

// "dstdrun exited with status 2 after 0.01 s" plus everything it printed,
// for failure messages.
inline std::string describe(const run_result& r) {
  std::string s = "exit " + std::to_string(r.exit_code) + ", signal " +
                  std::to_string(r.term_signal) + (r.timed_out ? " (timed out)" : "") +
                  ", " + std::to_string(r.seconds) + " s\n--- stdout:\n" + r.out +
                  "--- stderr:\n" + r.err;
  return s;
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace dstd::test
