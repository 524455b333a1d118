// dstdrun --hosts / --hostfile / --rsh with a fake remote shell
// (fake_rsh.sh) that runs each "remote" node on this machine: the host list
// and its errors, the remote command line, output, supervision of remote
// nodes (a killed node is named with its host), the lifeline's token, and
// nodes that end themselves when dstdrun is gone. Remote nodes run over ucx
// on TCP. The same over real network namespaces: tests/hosts/.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "launch_test_util.hpp"

namespace dstd::test {
namespace {

const std::string fake_rsh = FAKE_RSH_PATH;
// Loopback only: tests/CMakeLists.txt (dstd_ucx_test) says why.
const std::vector<std::string> ucx_env{"UCX_TLS=tcp", "UCX_NET_DEVICES=lo"};

// dstdrun --rsh RSH with `args` between the remote options and PROGRAM ARGS.
run_result on_hosts_via(const std::string& rsh, const std::vector<std::string>& args,
                        const std::vector<std::string>& program, run_options o = {}) {
  std::vector<std::string> argv{DSTDRUN_PATH, "--rsh", rsh, "--launcher-address", "127.0.0.1",
                                "--timeout", "25"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), program.begin(), program.end());
  o.env.insert(o.env.end(), ucx_env.begin(), ucx_env.end());
  if (o.limit_s == 30) o.limit_s = 40;
  return run_process(argv, o);
}

run_result on_hosts(const std::vector<std::string>& args, const std::vector<std::string>& program,
                    const run_options& o = {}) {
  return on_hosts_via(fake_rsh, args, program, o);
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "dstdrun_hosts_" + name + "_" +
                           std::to_string(getpid());
  std::ofstream(path) << text;
  scripts_written.paths.push_back(path);
  return path;
}

struct bad_hosts {
  const char* name;
  std::vector<std::string> args;
  const char* says;
};

class BadHosts : public ::testing::TestWithParam<bad_hosts> {};

TEST_P(BadHosts, ExitTwoNamingTheMistake) {
  std::vector<std::string> args;
  for (const std::string& a : GetParam().args) {
    if (a.rfind("@file:", 0) == 0) {
      args.push_back(write_file(GetParam().name, a.substr(6)));
    } else {
      args.push_back(a);
    }
  }
  const run_result r = on_hosts(args, {node_fault(), "ok"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_EQ(r.err.rfind("dstdrun: ", 0), 0u) << describe(r);
  EXPECT_TRUE(contains(r.err, GetParam().says)) << describe(r);
  EXPECT_TRUE(contains(r.err, "see dstdrun --help")) << describe(r);
  EXPECT_LT(r.seconds, 5) << describe(r);
}

INSTANTIATE_TEST_SUITE_P(
    Dstdrun, BadHosts,
    ::testing::Values(
        bad_hosts{"EmptyEntry", {"--hosts", "h1:2,,h2"}, "--hosts 'h1:2,,h2' has an empty entry"},
        bad_hosts{"ZeroSlots", {"--hosts", "h1:0"}, "--hosts: 'h1:0': the number of slots"},
        bad_hosts{"SlotsNotANumber", {"--hosts", "h1:two"}, "--hosts: 'h1:two': the number of slots"},
        bad_hosts{"HostLooksLikeAnOption", {"--hosts", "-oProxyCommand=x"}, "is not a host name"},
        bad_hosts{"MoreNodesThanSlots", {"-n", "5", "--hosts", "h1:2,h2:2"},
                  "-n 5 is more than the 4 slots of --hosts h1:2,h2:2"},
        bad_hosts{"HostsTwice", {"--hosts", "h1", "--hostfile", "/dev/null"},
                  "give the hosts once"},
        bad_hosts{"ShmOnTwoHosts", {"--transport", "shm", "--hosts", "h1:2,h2:2"},
                  "shm runs on one host; use --transport ucx"},
        bad_hosts{"NoHostfile", {"--hostfile", "/nonexistent/hosts"},
                  "cannot read the host file /nonexistent/hosts"},
        bad_hosts{"HostfileBadLine", {"--hostfile", "@file:h1\n# fine\nh2 slots=x\n"},
                  ":3: expected 'HOST', 'HOST:SLOTS' or 'HOST slots=SLOTS', got 'h2 slots=x'"},
        bad_hosts{"HostfileEmpty", {"--hostfile", "@file:# nothing\n\n"}, "names no host"},
        bad_hosts{"HostfileTooManyNodes", {"-n", "4", "--hostfile", "@file:h1 slots=3\n"},
                  "-n 4 is more than the 3 slots of the host file"}),
    [](const ::testing::TestParamInfo<bad_hosts>& p) { return std::string(p.param.name); });

// A host file with comments and both slot forms; -n defaults to its slots;
// the transport to ucx.
TEST(DstdrunHosts, HostfileGivesNodesAndTransport) {
  const std::string file = write_file("good", "# the run\nh1 slots=2  # two here\n\nh2:1\n");
  const run_result r = on_hosts({"--hostfile", file}, {node_fault(), "ok"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "ok from node 0 of 3")) << describe(r);
}

TEST(DstdrunHosts, UnresolvableHostWithoutLauncherAddress) {
  const run_result r = run_process({DSTDRUN_PATH, "--rsh", fake_rsh, "--hosts",
                                    "no-such-host.invalid:2", node_fault(), "ok"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "cannot resolve host no-such-host.invalid")) << describe(r);
  EXPECT_TRUE(contains(r.err, "--launcher-address")) << describe(r);
}

TEST(DstdrunHosts, LauncherAddressMustBeNumeric) {
  const run_result r = run_process({DSTDRUN_PATH, "--rsh", fake_rsh, "--launcher-address",
                                    "localhost", "--hosts", "h1,h2", node_fault(), "ok"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: the launcher address 'localhost' (--launcher-address or "
                              "DSTD_LAUNCHER_ADDRESS) is not a numeric IPv4 address"))
      << describe(r);
}

// Output of remote nodes comes back through the rsh's pipes, tagged.
TEST(DstdrunHosts, RemoteOutputIsTagged) {
  const run_result r =
      on_hosts({"--tag-output", "--hosts", "h1:2,h2:2"}, {output_program(), "lines", "3", "10"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  for (int node = 0; node < 4; ++node)
    EXPECT_TRUE(contains(r.out, "[node " + std::to_string(node) + "] node " +
                                    std::to_string(node) + " line 2 "))
        << describe(r);
}

// A remote node that dies ends the run within seconds, named with its host.
TEST(DstdrunHosts, KilledRemoteNodeIsNamedWithItsHost) {
  const run_result r = on_hosts({"--hosts", "h1:2,h2:2"}, {node_fault(), "kill", "3"});
  EXPECT_EQ(r.exit_code, 128 + SIGKILL) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: node 3 (host h2) was killed by signal 9 (SIGKILL)"))
      << describe(r);
  EXPECT_LT(r.seconds, 8) << describe(r);
}

// A lifeline that ends without "L" is a dead node even while its rsh lives
// on (here: the rsh outlives the killed node, as ssh may when the host is
// unreachable).
TEST(DstdrunHosts, LifelineEndingWithoutLeavingIsALostNode) {
  const std::string rsh = sh_script(
      "env -i PATH=/usr/bin:/bin sh -c \"$2\" &\n"
      "wait $!\n"
      "exec sleep 30");
  const run_result r = on_hosts_via(rsh, {"--hosts", "h1:2,h2:2"}, {node_fault(), "kill", "3"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: node 3 (host h2) closed its connection to dstdrun "
                              "without leaving; stopping the other 3 nodes"))
      << describe(r);
  EXPECT_LT(r.seconds, 5) << describe(r);
}

// Nodes on localhost are forked here as without --hosts (named by pid),
// the others started through the rsh (named by host).
TEST(DstdrunHosts, LocalhostNodesAreForkedHere) {
  const run_result r = on_hosts({"--hosts", "localhost:2,h2:2"}, {node_fault(), "kill", "1"});
  EXPECT_EQ(r.exit_code, 128 + SIGKILL) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: node 1 (pid ")) << describe(r);
  const run_result remote = on_hosts({"--hosts", "localhost:2,h2:2"}, {node_fault(), "kill", "2"});
  EXPECT_TRUE(contains(remote.err, "dstdrun: node 2 (host h2) was killed")) << describe(remote);
}

// An rsh that cannot reach the host (ssh's status 255), a program missing
// there (sh's 127): said with a hint.
TEST(DstdrunHosts, RshFailuresGetAHint) {
  const run_result unreachable =
      on_hosts_via(sh_script("exit 255"), {"--hosts", "h1,h2"}, {node_fault(), "ok"});
  EXPECT_EQ(unreachable.exit_code, 255) << describe(unreachable);
  EXPECT_TRUE(contains(unreachable.err, " before joining (status 255: could '"))
      << describe(unreachable);
  const run_result missing =
      on_hosts_via(sh_script("exit 127"), {"--hosts", "h1,h2"}, {node_fault(), "ok"});
  EXPECT_EQ(missing.exit_code, 127) << describe(missing);
  EXPECT_TRUE(contains(missing.err, " before joining (status 127: is " + node_fault() +
                                        " there, at the same path?)"))
      << describe(missing);
}

// The node's environment reaches it through the quoted command line.
TEST(DstdrunHosts, RemoteNodesGetTheContractAndTheUsersSettings) {
  run_options o;
  o.env = {"DSTD_WORKERS=2", "NOT_PASSED=1"};
  const std::string script = sh_script(
      "echo \"node=$DSTD_NODE_ID host=$DSTD_HOST workers=$DSTD_WORKERS other=$NOT_PASSED "
      "cwd=$(pwd) token=${#DSTD_LAUNCH_TOKEN} args=$1|$2\"\nsleep 1");
  const run_result r =
      on_hosts({"--join-timeout", "2", "--hosts", "h1,h2"}, {script, "it's", "a b"}, o);
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof cwd), nullptr);
  const std::string tail = " workers=2 other= cwd=" + std::string(cwd) + " token=32 args=it's|a b";
  EXPECT_TRUE(contains(r.out, "node=0 host=h1" + tail)) << describe(r);
  EXPECT_TRUE(contains(r.out, "node=1 host=h2" + tail)) << describe(r);
}

// A connection to the lifeline port with a wrong token is dropped: what it
// says counts for nothing (here: node 1 joined and died without leaving).
TEST(DstdrunHosts, WrongTokenIsDropped) {
  const std::string rsh = sh_script(
      "cmd=\"$2\"\n"
      "addr=$(printf '%s' \"$cmd\" | sed -n \"s/.*'DSTD_LAUNCH_ADDR=\\([^']*\\)'.*/\\1/p\")\n"
      "case \"$cmd\" in *DSTD_NODE_ID=1*)\n"
      "  bash -c \"exec 3<>/dev/tcp/${addr%:*}/${addr##*:}; printf 'badbadbad 1\\nJ 1\\n' >&3\";;\n"
      "esac\n"
      "exec sh -c \"$cmd\"");
  const run_result r = on_hosts_via(rsh, {"--hosts", "h1,h2"}, {node_fault(), "ok"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstdrun: dropped a connection from 127.0.0.1:")) << describe(r);
  EXPECT_TRUE(contains(r.err, ": wrong token")) << describe(r);
  EXPECT_TRUE(contains(r.out, "ok from node 0 of 2")) << describe(r);
}

// The same-binary check names the host of a node that runs another one
// (here: h2's "copy" of the program is another program).
TEST(DstdrunHosts, DifferentBinaryIsNamedWithItsHost) {
  const std::string rsh = sh_script(
      "cmd=\"$2\"\n"
      "[ \"$1\" = h2 ] && cmd=$(printf '%s' \"$cmd\" | sed \"s|/node_fault'|/output_program'|\")\n"
      "exec env -i PATH=/usr/bin:/bin sh -c \"$cmd\"");
  const run_result r = on_hosts_via(rsh, {"--hosts", "h1,h2"}, {node_fault(), "ok"});
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "dstd: node 1: this node (pid ")) << describe(r);
  EXPECT_TRUE(contains(r.err, " on host h2) runs a different binary than node 0 (on host h1): "))
      << describe(r);
}

// Running (a zombie waiting for init counts as gone).
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  const auto close_paren = text.rfind(')');
  return close_paren != std::string::npos && close_paren + 2 < text.size() &&
         text[close_paren + 2] != 'Z';
}

// A remote node does not die with dstdrun's process (PR_SET_PDEATHSIG);
// it ends itself when its lifeline closes.
TEST(DstdrunHosts, RemoteNodesEndWhenDstdrunIsGone) {
  const std::string pids = write_file("pids", "");
  run_options o;
  o.env = {"FAKE_RSH_PIDS=" + pids};
  o.signal = SIGKILL;
  o.signal_after_s = 4;
  const run_result r = on_hosts({"--hosts", "h1:2,h2:2"}, {node_fault(), "sleep"}, o);
  EXPECT_EQ(r.term_signal, SIGKILL) << describe(r);
  std::vector<pid_t> nodes;
  std::ifstream in(pids);
  for (pid_t p; in >> p;) nodes.push_back(p);
  EXPECT_EQ(nodes.size(), 4u) << describe(r);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (pid_t p : nodes) {
    while (alive(p) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(alive(p)) << "node pid " << p << " outlived dstdrun\n" << describe(r);
    if (alive(p)) kill(p, SIGKILL);
  }
}

}  // namespace
}  // namespace dstd::test
