// Early, clear errors before and at the start of a run: a program without
// libdstd is refused before any copy of it runs, and a bad DSTD_* setting
// ends the run as every node boots, with one line naming the variable, the
// value and what would be accepted; main never runs.
#include <sys/stat.h>

#include <string>

#include "launch_test_util.hpp"

namespace dstd::test {
namespace {

bool file_exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

TEST(DstdrunProgramCheck, ProgramWithoutLibdstdIsRefusedBeforeAnyCopyRuns) {
  const std::string trace = ::testing::TempDir() + "not_dstd_ran_" + std::to_string(getpid());
  std::remove(trace.c_str());
  const run_result r = dstdrun({"-n", "3", "--timeout", "30", not_dstd_program(), trace});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: " + not_dstd_program() +
                                  " is not a dstd program: it does not link libdstd"))
      << describe(r);
  EXPECT_TRUE(contains(r.err, "-ldstd")) << describe(r);
  EXPECT_TRUE(contains(r.err, "target_link_libraries(app PRIVATE dstd::dstd)")) << describe(r);
  EXPECT_FALSE(file_exists(trace)) << "the program ran\n" << describe(r);
  std::remove(trace.c_str());
}

TEST(DstdrunProgramCheck, SystemProgramIsRefused) {
  const run_result r = dstdrun({"-n", "2", "--timeout", "30", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: /bin/true is not a dstd program")) << describe(r);
}

// A program linked with libdstd.a (tests/layering) runs on one node only.
TEST(DstdrunProgramCheck, StaticLibdstdRunsOnOneNodeOnly) {
  const std::string program = STATIC_DSTD_PROGRAM_PATH;
  const run_result two = dstdrun({"-n", "2", "--timeout", "30", program});
  EXPECT_EQ(two.exit_code, 2) << describe(two);
  EXPECT_TRUE(contains(two.err, "dstdrun: " + program +
                                    " links libdstd statically (libdstd.a), which runs on one "
                                    "node only; to run it on 2 nodes, link it with -ldstd"))
      << describe(two);
  EXPECT_FALSE(contains(two.out, "PASSED")) << "it ran\n" << describe(two);
  const run_result one = dstdrun({"-n", "1", "--timeout", "30", program});
  EXPECT_EQ(one.exit_code, 0) << describe(one);
  EXPECT_TRUE(contains(one.out, "PASSED")) << describe(one);
}

struct bad_setting {
  const char* name;
  std::string assignment;  // NAME=VALUE
  std::string message;     // what the node says about it
};

class DstdrunBadSetting : public ::testing::TestWithParam<bad_setting> {};

void expect_refused(const run_result& r, const bad_setting& s) {
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, s.message)) << describe(r);
  EXPECT_FALSE(contains(r.out, "ok from node")) << "main ran\n" << describe(r);
}

TEST_P(DstdrunBadSetting, EndsTheRunAtBoot) {
  for (const char* nodes : {"2", "4"}) {
    run_options o;
    o.env = {GetParam().assignment};
    const run_result r = dstdrun({"-n", nodes, "--timeout", "30", node_fault(), "ok"}, o);
    expect_refused(r, GetParam());
    EXPECT_TRUE(contains(r.err, "dstdrun: node ")) << describe(r);
  }
}

// Without dstdrun: one node, same check.
TEST_P(DstdrunBadSetting, EndsAOneNodeRunAtBoot) {
  run_options o;
  o.env = {GetParam().assignment};
  expect_refused(run_process({node_fault(), "ok"}, o), GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Settings, DstdrunBadSetting,
    ::testing::Values(
        bad_setting{"StackKb", "DSTD_STACK_KB=big",
                    "DSTD_STACK_KB=big is not a number from 1 to 1048576"},
        bad_setting{"Workers", "DSTD_WORKERS=0", "DSTD_WORKERS=0 is not a number from 1 to 4096"},
        bad_setting{"Placement", "DSTD_PLACEMENT=near",
                    "DSTD_PLACEMENT=near is not one of spread or local"},
        bad_setting{"Chaos", "DSTD_CHAOS=-1", "DSTD_CHAOS=-1 is not a number from 0 to "},
        bad_setting{"ShmDelay", "DSTD_SHM_DELAY_US=2000000",
                    "DSTD_SHM_DELAY_US=2000000 is not a number from 0 to 1000000"},
        bad_setting{"Stats", "DSTD_STATS=yes", "DSTD_STATS=yes is not one of 0 or 1"}),
    [](const ::testing::TestParamInfo<bad_setting>& p) { return p.param.name; });

}  // namespace
}  // namespace dstd::test
