// dstdrun with a real dstd program (node_fault) whose nodes fail on purpose:
// every failure is named in one line, the other nodes stop within seconds,
// and the exit status says what happened.
//
// A node starts running handlers only after it has told dstdrun it joined,
// so a failure in a handler is never reported as "before joining".
#include <csignal>
#include <string>

#include "launch_test_util.hpp"

namespace dstd::test {
namespace {

run_result fault(const std::string& nodes, const std::string& mode, const std::string& node) {
  return dstdrun({"-n", nodes, "--timeout", "30", node_fault(), mode, node});
}

TEST(DstdrunFault, NodeKilledBySigkill) {
  const run_result r = fault("4", "kill", "2");
  EXPECT_EQ(r.exit_code, 128 + SIGKILL) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: node 2 (pid ")) << describe(r);
  EXPECT_TRUE(contains(r.err, "was killed by signal 9 (SIGKILL)")) << describe(r);
  EXPECT_TRUE(contains(r.err, "; stopping the other 3 nodes\n")) << describe(r);
  EXPECT_FALSE(contains(r.err, "before joining")) << describe(r);
  EXPECT_LT(r.seconds, 5) << describe(r);
}

TEST(DstdrunFault, NodeAborts) {
  const run_result r = fault("4", "abort", "3");
  EXPECT_EQ(r.exit_code, 128 + SIGABRT) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: node 3 (pid ")) << describe(r);
  EXPECT_TRUE(contains(r.err, "(SIGABRT")) << describe(r);
  EXPECT_FALSE(contains(r.err, "before joining")) << describe(r);
  EXPECT_LT(r.seconds, 5) << describe(r);
}

TEST(DstdrunFault, NodeExitsWithStatus3) {
  const run_result r = fault("4", "exit3", "1");
  EXPECT_EQ(r.exit_code, 3) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: node 1 (pid ")) << describe(r);
  EXPECT_TRUE(contains(r.err, "exited with status 3")) << describe(r);
  EXPECT_TRUE(contains(r.err, "; stopping the other 3 nodes\n")) << describe(r);
  EXPECT_FALSE(contains(r.err, "before joining")) << describe(r);
  EXPECT_LT(r.seconds, 5) << describe(r);
}

TEST(DstdrunFault, NodeZeroAborts) {
  const run_result r = fault("4", "abort", "0");
  EXPECT_EQ(r.exit_code, 128 + SIGABRT) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: node 0 (pid ")) << describe(r);
  EXPECT_TRUE(contains(r.err, "(SIGABRT")) << describe(r);
  EXPECT_LT(r.seconds, 5) << describe(r);
}

// A runtime handler given a payload of the wrong size ends its node with a
// message naming the handler and the sender, not a misread.
TEST(DstdrunFault, ShortMessageIsAFatalErrorNamingHandlerAndSender) {
  const run_result r = fault("3", "short_message", "2");
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstd: node 2: a message for handler 9 (futex_wake) from node 0 "
                              "has 1 bytes; it needs 16"))
      << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: node 2 (pid ")) << describe(r);
  EXPECT_LT(r.seconds, 5) << describe(r);
}

TEST(DstdrunFault, AReplyOfTheWrongSizeIsAFatalErrorNamingHandlerAndNode) {
  const run_result r = fault("3", "bad_reply", "1");
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstd: node 1: handler 259 (user) replied to node 0 with 4 bytes; "
                              "it declares 8"))
      << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: node 1 (pid ")) << describe(r);
  EXPECT_LT(r.seconds, 5) << describe(r);
}

TEST(DstdrunFault, OnlyTheFailingNodeIsReported) {
  const run_result r = fault("4", "kill", "1");
  EXPECT_EQ(r.err.find("dstdrun: "), r.err.rfind("dstdrun: ")) << describe(r);
}

TEST(DstdrunFault, CleanRun) {
  const run_result r = dstdrun({"-n", "4", "--timeout", "30", node_fault(), "ok"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out, "ok from node 0 of 4\n") << describe(r);
  EXPECT_TRUE(r.err.empty()) << describe(r);
  EXPECT_LT(r.seconds, 5) << describe(r);
}

TEST(DstdrunFault, CleanRunWithTaggedOutput) {
  const run_result r =
      dstdrun({"-n", "4", "--tag-output", "--timeout", "30", node_fault(), "ok"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out, "[node 0] ok from node 0 of 4\n") << describe(r);
  EXPECT_LT(r.seconds, 5) << describe(r);
}

TEST(DstdrunFault, OneNodeRun) {
  const run_result r = dstdrun({"-n", "1", "--timeout", "30", node_fault(), "ok"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out, "ok from node 0 of 1\n") << describe(r);
}

TEST(DstdrunFault, ExitStatusOfTheProgramIsPropagated) {
  const run_result r = dstdrun({"-n", "4", "--timeout", "30", node_fault(), "status7"});
  EXPECT_EQ(r.exit_code, 7) << describe(r);
  EXPECT_TRUE(r.err.empty()) << describe(r);
  EXPECT_LT(r.seconds, 5) << describe(r);
}

TEST(DstdrunFault, TimeoutStopsADstdProgram) {
  const run_result r = dstdrun({"-n", "3", "--timeout", "2", node_fault(), "sleep"});
  EXPECT_EQ(r.exit_code, 124) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: timeout after 2 s; stopping 3 nodes")) << describe(r);
  EXPECT_GE(r.seconds, 2) << describe(r);
  EXPECT_LT(r.seconds, 6) << describe(r);
}

}  // namespace
}  // namespace dstd::test
