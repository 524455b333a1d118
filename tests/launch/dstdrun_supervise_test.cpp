// dstdrun's supervision, driven by fake nodes: small sh scripts that speak
// the status-pipe contract of runtime/common/launch_contract.hpp ("J <id>",
// "L <id>") without libdstd, so each way a run can end is easy to stage.
#include <csignal>
#include <string>

#include "launch_test_util.hpp"

namespace dstd::test {
namespace {

// A sh script running SCRIPT after the node has said it joined. $id is the
// node id.
run_result fake_nodes(std::initializer_list<std::string> options, const std::string& script,
                      const run_options& o = {}) {
  std::vector<std::string> argv{DSTDRUN_PATH};
  argv.insert(argv.end(), options);
  argv.push_back(sh_script("id=$DSTD_NODE_ID; echo \"J $id\" >&$DSTD_LAUNCH_FD; " + script));
  return run_process(argv, o);
}

constexpr const char* leave = "echo \"L $id\" >&$DSTD_LAUNCH_FD; exit 0";

// Node 0 says "L" once it has told the others the program is over.
constexpr const char* node0_ends = "echo \"L $id\" >&$DSTD_LAUNCH_FD; exit";

TEST(DstdrunSupervise, ProgramStatusIsPropagatedWhenNodesLeave) {
  const run_result r = fake_nodes(
      {"-n", "4"}, std::string("if [ $id = 0 ]; then sleep 0.3; ") + node0_ends +
                       " 5; fi; sleep 0.5; " + leave);
  EXPECT_EQ(r.exit_code, 5) << describe(r);
  EXPECT_TRUE(r.err.empty()) << describe(r);
  EXPECT_LT(r.seconds, 5) << describe(r);
}

TEST(DstdrunSupervise, NodeThatLeftBeforeNodeZeroEndedIsFine) {
  const run_result r = fake_nodes(
      {"-n", "3"}, std::string("if [ $id = 0 ]; then sleep 0.5; ") + node0_ends + " 0; fi; " +
                       leave);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(r.err.empty()) << describe(r);
}

// A fatal error on node 0 (it exits 1 without telling the others): the
// others stop at once, and dstdrun names node 0.
TEST(DstdrunSupervise, NodeZeroFailingStopsTheOthersAtOnce) {
  const run_result r =
      fake_nodes({"-n", "3"}, "if [ $id = 0 ]; then sleep 0.2; exit 1; fi; exec sleep 30");
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: node 0 (pid ")) << describe(r);
  EXPECT_TRUE(contains(r.err, "exited with status 1; stopping the other 2 nodes")) << describe(r);
  EXPECT_EQ(r.err.find("did not stop"), std::string::npos) << describe(r);
  EXPECT_LT(r.seconds, 2) << describe(r);
}

// Node 0 ended with _exit(0), never telling the others: they are stopped
// quietly and the run's status is 0.
TEST(DstdrunSupervise, NodeZeroEndingWithoutShutdownStopsTheOthersQuietly) {
  const run_result r =
      fake_nodes({"-n", "3"}, "if [ $id = 0 ]; then sleep 0.2; exit 0; fi; exec sleep 30");
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(r.err.empty()) << describe(r);
  EXPECT_LT(r.seconds, 2) << describe(r);
}

TEST(DstdrunSupervise, NodeThatDoesNotStopAfterTheProgramIsKilled) {
  const run_result r = fake_nodes(
      {"-n", "3"},
      std::string("if [ $id = 0 ]; then sleep 0.2; ") + node0_ends + " 0; fi; exec sleep 30");
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: node 1 did not stop after the program ended; killed it"))
      << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: node 2 did not stop after the program ended; killed it"))
      << describe(r);
  EXPECT_GE(r.seconds, 2) << describe(r);
  EXPECT_LT(r.seconds, 6) << describe(r);
}

TEST(DstdrunSupervise, NodeExitingWithoutLeavingIsAFailure) {
  const run_result r =
      fake_nodes({"-n", "4"}, "if [ $id = 2 ]; then sleep 0.3; exit 0; fi; exec sleep 30");
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: node 2 (pid ")) << describe(r);
  EXPECT_TRUE(contains(r.err, "exited with status 0 while the program was still running; "
                              "stopping the other 3 nodes"))
      << describe(r);
  EXPECT_LT(r.seconds, 5) << describe(r);
}

TEST(DstdrunSupervise, OnlyTheFirstFailureIsReported) {
  const run_result r = fake_nodes(
      {"-n", "4"}, "if [ $id = 1 ]; then sleep 0.3; kill -9 $$; fi; exec sleep 30");
  EXPECT_EQ(r.exit_code, 128 + SIGKILL) << describe(r);
  EXPECT_TRUE(contains(r.err, "node 1 (pid ")) << describe(r);
  EXPECT_TRUE(contains(r.err, "was killed by signal 9 (SIGKILL); stopping the other 3 nodes"))
      << describe(r);
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "exactly one line\n" << describe(r);
  EXPECT_LT(r.seconds, 5) << describe(r);
}

TEST(DstdrunSupervise, NodesIgnoringSigtermAreKilled) {
  const run_result r = fake_nodes({"-n", "3", "--timeout", "1"}, "trap '' TERM; exec sleep 30");
  EXPECT_EQ(r.exit_code, 124) << describe(r);
  EXPECT_LT(r.seconds, 5) << describe(r);
}

TEST(DstdrunSupervise, InterruptStopsEveryNode) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    run_options o;
    o.signal = sig;
    o.signal_after_s = 0.5;
    const run_result r = fake_nodes({"-n", "3"}, "exec sleep 30", o);
    EXPECT_EQ(r.exit_code, 128 + sig) << describe(r);
    EXPECT_TRUE(contains(r.err, "dstdrun: interrupted; stopping 3 nodes")) << describe(r);
    EXPECT_LT(r.seconds, 5) << describe(r);
  }
}

TEST(DstdrunSupervise, NodesGetTheLaunchContract) {
  const run_result r = fake_nodes(
      {"-n", "2", "--tag-output", "--partition-gb", "2", "--join-timeout", "1.5"},
      "echo node=$DSTD_NODE_ID count=$DSTD_NODE_COUNT transport=$DSTD_TRANSPORT "
      "bytes=$DSTD_PARTITION_BYTES join_ms=$DSTD_JOIN_TIMEOUT_MS; "
      "for fd in $DSTD_SHM_CONTROL_FD $DSTD_SHM_HEAP_FD; do "
      "  echo fd=$(readlink /proc/self/fd/$fd | cut -d' ' -f1); done; "
      "echo persona=$(cat /proc/self/personality); "
      "echo stdin=$(readlink /proc/self/fd/0); " +
          std::string("if [ $id = 0 ]; then sleep 0.3; ") + node0_ends + " 0; fi; " + leave);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  for (int id : {0, 1}) {
    const std::string tag = "[node " + std::to_string(id) + "] ";
    EXPECT_TRUE(contains(r.out, tag + "node=" + std::to_string(id) +
                                    " count=2 transport=shm bytes=2147483648 join_ms=1500\n"))
        << describe(r);
    EXPECT_TRUE(contains(r.out, tag + "fd=/memfd:dstd-control\n")) << describe(r);
    EXPECT_TRUE(contains(r.out, tag + "fd=/memfd:dstd-heap\n")) << describe(r);
    // ADDR_NO_RANDOMIZE is 0x0040000.
    EXPECT_TRUE(contains(r.out, tag + "persona=00040000\n")) << describe(r);
  }
  EXPECT_TRUE(contains(r.out, "[node 1] stdin=/dev/null\n")) << describe(r);
}

TEST(DstdrunSupervise, TaggedOutputKeepsLinesAndStreams) {
  const run_result r = fake_nodes(
      {"-n", "2", "--tag-output"},
      std::string("printf 'one\\ntwo\\npartial'; echo oops >&2; ") +
          "if [ $id = 0 ]; then sleep 0.3; " + node0_ends + " 0; fi; " + leave);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  for (const char* tag : {"[node 0] ", "[node 1] "}) {
    const std::string t(tag);
    EXPECT_TRUE(contains(r.out, t + "one\n" + t + "two\n")) << describe(r);
    EXPECT_TRUE(contains(r.out, t + "partial\n")) << describe(r);  // flushed at the end
    EXPECT_TRUE(contains(r.err, t + "oops\n")) << describe(r);
    EXPECT_FALSE(contains(r.out, t + "oops")) << describe(r);
  }
}

}  // namespace
}  // namespace dstd::test
