// dstdrun from the outside, without libdstd: its command line, and how it
// treats programs that are not dstd programs (they never join).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "launch_test_util.hpp"

namespace dstd::test {
namespace {

constexpr const char* usage_line = "usage: dstdrun -n N [options] PROGRAM [ARGS...]";

struct bad_args {
  const char* name;
  std::vector<std::string> args;
  const char* says;  // part of the error line
};

class BadArguments : public ::testing::TestWithParam<bad_args> {};

// A file that exists but may not be executed.
std::string non_executable_file() {
  static const std::string path = [] {
    std::string p = ::testing::TempDir() + "dstdrun_not_executable";
    if (FILE* f = std::fopen(p.c_str(), "w")) {
      std::fputs("not a program\n", f);
      std::fclose(f);
    }
    chmod(p.c_str(), 0644);
    return p;
  }();
  return path;
}

TEST_P(BadArguments, ExitTwoWithUsageHint) {
  std::vector<std::string> argv{DSTDRUN_PATH};
  for (const std::string& a : GetParam().args)
    argv.push_back(a == "@nonexec" ? non_executable_file() : a);
  const run_result r = run_process(argv);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: ")) << describe(r);
  EXPECT_TRUE(contains(r.err, GetParam().says)) << describe(r);
  EXPECT_TRUE(contains(r.err, "usage")) << describe(r);
  EXPECT_TRUE(contains(r.err, "see dstdrun --help")) << describe(r);
  EXPECT_TRUE(r.out.empty()) << describe(r);
  EXPECT_LT(r.seconds, 5) << describe(r);
}

INSTANTIATE_TEST_SUITE_P(
    Dstdrun, BadArguments,
    ::testing::Values(
        bad_args{"ZeroNodes", {"-n", "0", "/bin/true"}, "at least 1"},
        bad_args{"TooManyNodes", {"-n", "65", "/bin/true"}, "at most 64 nodes"},
        bad_args{"NodesNotANumber", {"-n", "abc", "/bin/true"}, "'abc'"},
        bad_args{"NodesMissing", {"/bin/true"}, "number of nodes is required"},
        bad_args{"NodesValueMissing", {"-n"}, "-n needs"},
        bad_args{"UnknownOption", {"-n", "2", "--frobnicate", "/bin/true"}, "--frobnicate"},
        bad_args{"MissingProgram", {"-n", "2"}, "no program"},
        bad_args{"NonExecutableFile", {"-n", "2", "@nonexec"}, "not an executable"},
        bad_args{"NonexistentProgram", {"-n", "2", "/nonexistent/dstd_prog"}, "no such file"},
        bad_args{"ProgramNotInPath", {"-n", "2", "dstd_no_such_program"}, "not found in PATH"},
        bad_args{"Directory", {"-n", "2", "/"}, "is a directory"},
        bad_args{"BadTimeout", {"-n", "2", "--timeout", "soon", "/bin/true"}, "'soon'"},
        bad_args{"ZeroTimeout", {"-n", "2", "--timeout=0", "/bin/true"}, "positive"},
        bad_args{"PartitionTooLarge",
                 {"-n", "64", "--partition-gb", "512", "/bin/true"},
                 "at most 256 GiB"},
        bad_args{"PartitionZero", {"-n", "2", "--partition-gb=0", "/bin/true"}, "at least 1"},
        bad_args{"UnknownTransport", {"-n", "2", "--transport", "smoke", "/bin/true"},
                 "unknown transport"}),
    [](const ::testing::TestParamInfo<bad_args>& p) { return std::string(p.param.name); });

TEST(Dstdrun, BadPartitionSizeFromEnvironment) {
  run_options o;
  o.env = {"DSTD_PARTITION_GB=lots"};
  const run_result r = dstdrun({"-n", "2", "/bin/true"}, o);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "DSTD_PARTITION_GB")) << describe(r);
}

#ifndef DSTD_HAVE_VERBS
// Built without libibverbs and librdmacm: dstdrun says so before starting nodes.
TEST(Dstdrun, VerbsTransportNotBuilt) {
  const run_result r = dstdrun({"-n", "2", "--transport", "verbs", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "built without the verbs transport")) << describe(r);
}
#endif

// dstdrun and the nodes' backend factory name the same known backends.
TEST(Dstdrun, UnknownTransportNamesTheKnownOnes) {
  const run_result r = dstdrun({"-n", "2", "--transport", "tcp", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
#ifdef DSTD_HAVE_VERBS
  EXPECT_TRUE(contains(r.err, "unknown transport 'tcp' (known: shm, ucx, verbs)")) << describe(r);
#else
  EXPECT_TRUE(contains(r.err, "unknown transport 'tcp' (known: shm, ucx)")) << describe(r);
#endif
}

TEST(Dstdrun, Help) {
  const run_result r = dstdrun({"--help"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, usage_line)) << describe(r);
  EXPECT_TRUE(contains(r.out, "--tag-output")) << describe(r);
  EXPECT_TRUE(r.err.empty()) << describe(r);
}

TEST(Dstdrun, Version) {
  const run_result r = dstdrun({"--version"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out, std::string("dstdrun (dstd) ") + DSTD_VERSION + "\n") << describe(r);
}

// The file is found in PATH and read: /bin/true has no libdstd.
TEST(Dstdrun, ProgramIsSearchedInPath) {
  const run_result r = dstdrun({"-n", "1", "true"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: true is not a dstd program")) << describe(r);
}

// A script is not judged (it may start a dstd program); this one never joins.
TEST(Dstdrun, ProgramThatExitsBeforeJoiningGetsAHint) {
  const run_result r = dstdrun({"-n", "2", "--timeout", "30", sh_script("exit 0")});
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "before joining")) << describe(r);
  EXPECT_TRUE(contains(r.err, "linked with libdstd?")) << describe(r);
}

TEST(Dstdrun, ProgramThatNeverJoinsTimesOut) {
  const run_result r = dstdrun({"-n", "2", "--join-timeout", "2", sh_script("sleep 30")});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: node 0 (pid ")) << describe(r);
  EXPECT_TRUE(contains(r.err, "did not join within 2 s")) << describe(r);
  EXPECT_GE(r.seconds, 2) << describe(r);
  EXPECT_LT(r.seconds, 6) << describe(r);
}

TEST(Dstdrun, WholeRunTimeout) {
  const run_result r = dstdrun({"-n", "2", "--timeout", "1", sh_script("sleep 30")});
  EXPECT_EQ(r.exit_code, 124) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: timeout after 1 s; stopping 2 nodes")) << describe(r);
  EXPECT_GE(r.seconds, 1) << describe(r);
  EXPECT_LT(r.seconds, 5) << describe(r);
}

TEST(Dstdrun, ExecFailureIsReported) {
  // Executable bit set, but no valid format: execve fails in the node.
  const std::string path = ::testing::TempDir() + "dstdrun_bad_format";
  if (FILE* f = std::fopen(path.c_str(), "w")) {
    std::fputs("\x01\x02 not a program", f);
    std::fclose(f);
  }
  chmod(path.c_str(), 0755);
  const run_result r = dstdrun({"-n", "2", path});
  EXPECT_EQ(r.exit_code, 127) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: cannot run " + path + ": ")) << describe(r);
  EXPECT_LT(r.seconds, 5) << describe(r);
}

}  // namespace
}  // namespace dstd::test
