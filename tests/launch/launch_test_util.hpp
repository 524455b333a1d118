// Shared helpers of the dstdrun tests: how to call dstdrun and what to expect.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

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
inline std::string not_dstd_program() { return NOT_DSTD_PROGRAM_PATH; }
inline std::string output_program() { return OUTPUT_PROGRAM_PATH; }

// Files to remove when the test program ends.
struct temp_files {
  std::vector<std::string> paths;
  ~temp_files() {
    for (const std::string& p : paths) unlink(p.c_str());
  }
};
inline temp_files scripts_written;

// A sh script in a file of its own (named after the test and this process)
// whose path is returned: a program dstdrun starts without looking for
// libdstd in it, so a test can stage nodes that speak the launch contract.
inline std::string sh_script(const std::string& body) {
  const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string path = ::testing::TempDir() + "dstdrun_" + t->test_suite_name() + "_" +
                           t->name() + "_" + std::to_string(getpid()) + ".sh";
  if (FILE* f = std::fopen(path.c_str(), "w")) {
    std::fputs(("#!/bin/sh\n" + body + "\n").c_str(), f);
    std::fclose(f);
  }
  chmod(path.c_str(), 0755);
  scripts_written.paths.push_back(path);
  return path;
}

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
