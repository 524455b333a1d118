// dstdrun --trace FILE: one Chrome/Perfetto JSON document with a process per
// node, a named track per worker, and the events a user looks for (threads
// running, faults with page and home, releases and acquires with page
// counts, lock waits, messages); at most DSTD_TRACE_EVENTS events per node;
// a node that dies is named and the others' events are kept; bad values are
// usage errors before any node starts (docs/DESIGN.md §8).
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "../support/json_check.hpp"
#include "launch_test_util.hpp"

namespace dstd::test {
namespace {

std::string trace_program() { return TRACE_PROGRAM_PATH; }

std::string temp_trace_file() {
  const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string path = ::testing::TempDir() + "dstdrun_trace_" + t->name() + "_" + std::to_string(getpid()) + ".json";
  scripts_written.paths.push_back(path);
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// One trace event, as the fields a test reads (dstd writes one event per
// line; the syntax of the whole is checked separately).
struct event {
  std::string name, ph, line;
  int pid = -1, tid = -1;
};

std::vector<event> events_of(const std::string& json) {
  static const std::regex field_name("\"name\": \"([^\"]*)\"");
  static const std::regex field_ph("\"ph\": \"([^\"]*)\"");
  static const std::regex field_pid("\"pid\": ([0-9]+)");
  static const std::regex field_tid("\"tid\": ([0-9]+)");
  std::vector<event> out;
  std::istringstream in(json);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (line.find("\"ph\"") == std::string::npos) continue;
    event e;
    e.line = line;
    if (std::regex_search(line, m, field_name)) e.name = m[1];
    if (std::regex_search(line, m, field_ph)) e.ph = m[1];
    if (std::regex_search(line, m, field_pid)) e.pid = std::stoi(m[1]);
    if (std::regex_search(line, m, field_tid)) e.tid = std::stoi(m[1]);
    out.push_back(e);
  }
  return out;
}

// The checker the tests below rely on rejects what a JSON parser rejects.
TEST(DstdrunTrace, TheJsonCheckerTellsValidFromInvalid) {
  EXPECT_EQ(json_syntax_error("{\"a\": [1, -2.5e3, \"x\\n\", true, null], \"b\": {}}"), "");
  EXPECT_NE(json_syntax_error("{\"a\": [1, 2,]}"), "");
  EXPECT_NE(json_syntax_error("{\"a\": 1,\n}"), "");
  EXPECT_NE(json_syntax_error("{\"a\" 1}"), "");
  EXPECT_NE(json_syntax_error("[1] [2]"), "");
  EXPECT_NE(json_syntax_error("{\"a\": \"tab\there\"}"), "");
  EXPECT_NE(json_syntax_error("[01]"), "");
  EXPECT_NE(json_syntax_error(""), "");
}

TEST(DstdrunTrace, EveryNodeHasNamedWorkerTracksAndTheEventsOfItsWork) {
  const std::string file = temp_trace_file();
  const run_result r = dstdrun({"-n", "3", "--trace", file, "--timeout", "60", trace_program(), "count", "200"});
  ASSERT_EQ(r.exit_code, 0) << describe(r).substr(0, 2000);
  EXPECT_NE(r.out.find("counter 600"), std::string::npos) << r.out;
  const std::string json = read_file(file);
  ASSERT_EQ(json_syntax_error(json), "") << json.substr(0, 2000);
  EXPECT_EQ(json.rfind("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [", 0), 0u);

  const std::vector<event> events = events_of(json);
  std::map<int, std::set<std::string>> names;            // per node: the names of its events
  std::map<int, std::map<int, std::string>> track_names;  // per node: tid -> track name
  std::map<std::string, int> begun, ended;                // async waits, by id
  for (const event& e : events) {
    ASSERT_GE(e.pid, 0) << e.line;
    names[e.pid].insert(e.name);
    if (e.ph == "M" && e.name == "thread_name") {
      static const std::regex arg_name("\"args\": \\{\"name\": \"([^\"]*)\"");
      std::smatch m;
      ASSERT_TRUE(std::regex_search(e.line, m, arg_name)) << e.line;
      track_names[e.pid][e.tid] = m[1];
    }
    if (e.name == "read fault" || e.name == "write fault") {
      EXPECT_TRUE(std::regex_search(e.line, std::regex("\"page\": \"0x[0-9a-f]+\", \"home\": [0-9]+"))) << e.line;
    }
    if (e.name == "acquire") {
      EXPECT_NE(e.line.find("\"pages_dropped\": "), std::string::npos) << e.line;
      EXPECT_NE(e.line.find("\"pages_refreshed\": "), std::string::npos) << e.line;
    }
    if (e.name == "release") {
      EXPECT_NE(e.line.find("\"pages\": "), std::string::npos) << e.line;
    }
    if (e.ph == "b" || e.ph == "e") {
      std::smatch m;
      ASSERT_TRUE(std::regex_search(e.line, m, std::regex("\"id\": \"(0x[0-9a-f]+)\""))) << e.line;
      (e.ph == "b" ? begun : ended)[std::to_string(e.pid) + m[1].str()]++;
    }
    if (e.ph == "X") {
      EXPECT_NE(e.line.find("\"dur\": "), std::string::npos) << e.line;
    }
  }
  ASSERT_EQ(names.size(), 3u) << "events from nodes 0..2 expected";
  for (int node = 0; node < 3; ++node) {
    SCOPED_TRACE("node " + std::to_string(node));
    EXPECT_TRUE(names[node].count("process_name"));
    std::set<std::string> tracks;
    for (const auto& [tid, name] : track_names[node]) tracks.insert(name);
    EXPECT_TRUE(tracks.count("worker 0")) << "no track named worker 0";
    EXPECT_TRUE(tracks.count("service")) << "no track named service";
    EXPECT_TRUE(names[node].count("dstd thread")) << "no thread ran";
    EXPECT_TRUE(names[node].count("send")) << "no message sent";
  }
  // Node 0 is the home of the counter and the array; the others fault on
  // them, release their writes and acquire the lock.
  for (int node = 1; node < 3; ++node) {
    SCOPED_TRACE("node " + std::to_string(node));
    EXPECT_TRUE(names[node].count("read fault") || names[node].count("write fault"));
    EXPECT_TRUE(names[node].count("write fault"));
    EXPECT_TRUE(names[node].count("release"));
    EXPECT_TRUE(names[node].count("acquire"));
  }
  // Handled messages are named by their handler: nodes 1 and 2 ran the
  // threads node 0 started there. (Their diffs reach node 0 without a
  // message on shm: the releaser applies them, coherence/home_apply.hpp.)
  for (int node = 1; node < 3; ++node) {
    EXPECT_TRUE(names[node].count("start_thread")) << "node " << node << " handled no start";
  }
  EXPECT_EQ(begun, ended) << "every wait has a begin and an end";
  EXPECT_FALSE(begun.empty()) << "three nodes taking one lock 600 times never waited";
  // The parts the nodes wrote are gone.
  for (int node = 0; node < 3; ++node) {
    EXPECT_NE(access((file + ".node" + std::to_string(node)).c_str(), F_OK), 0);
  }
}

TEST(DstdrunTrace, EachNodeKeepsAtMostTheLastTraceEventsEvents) {
  const std::string file = temp_trace_file();
  run_options o;
  o.env = {"DSTD_TRACE_EVENTS=100"};
  const run_result r =
      dstdrun({"-n", "2", "--trace", file, "--timeout", "60", trace_program(), "count", "300"}, o);
  ASSERT_EQ(r.exit_code, 0) << describe(r).substr(0, 2000);
  const std::string json = read_file(file);
  ASSERT_EQ(json_syntax_error(json), "") << json.substr(0, 2000);
  std::map<int, int> recorded;  // per node: events (an async begin and end are one)
  for (const event& e : events_of(json)) {
    if (e.ph != "M" && e.ph != "e") recorded[e.pid]++;
  }
  ASSERT_EQ(recorded.size(), 2u);
  for (const auto& [node, n] : recorded) EXPECT_LE(n, 100) << "node " << node;
  EXPECT_TRUE(std::regex_search(json, std::regex("\"node 1 \\(oldest [0-9]+ events overwritten\\)\"")))
      << json.substr(0, 1000);
}

std::set<int> nodes_with_events(const std::string& json) {
  std::set<int> nodes;
  for (const event& e : events_of(json)) {
    // Work a node's threads did: node 1's thread in "die" aborts inside its
    // run, before the run's event; what it did before shows as faults and
    // releases (on shm its diffs go home without messages).
    if (e.name == "dstd thread" || e.name == "send" || e.name == "release" ||
        e.name == "write fault") {
      nodes.insert(e.pid);
    }
  }
  return nodes;
}

// A node that aborts (an assert, std::terminate) writes its events as it
// dies, and dstdrun stops the others (SIGTERM), which write theirs.
TEST(DstdrunTrace, ANodeThatAbortsAndTheNodesStoppedBecauseOfItWriteTheirEvents) {
  const std::string file = temp_trace_file();
  const run_result r = dstdrun({"-n", "3", "--trace", file, "--timeout", "60", trace_program(), "die"});
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.err.find("has no events"), std::string::npos) << r.err;
  const std::string json = read_file(file);
  ASSERT_EQ(json_syntax_error(json), "") << json.substr(0, 2000);
  EXPECT_EQ(nodes_with_events(json), (std::set<int>{0, 1, 2}));
}

// A node killed outright (SIGKILL, or a crash) cannot write: dstdrun keeps
// the others' events and names it.
TEST(DstdrunTrace, ANodeKilledOutrightIsNamedAndTheOthersEventsAreKept) {
  const std::string file = temp_trace_file();
  const run_result r = dstdrun({"-n", "3", "--trace", file, "--timeout", "60", trace_program(), "kill"});
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.err.find("has no events of node 1: a node writes its events when"), std::string::npos) << r.err;
  const std::string json = read_file(file);
  ASSERT_EQ(json_syntax_error(json), "") << json.substr(0, 2000);
  EXPECT_EQ(nodes_with_events(json), (std::set<int>{0, 2}));
}

// A node that the runtime stops with an error (fatal(): here a malformed
// message) writes its events before it exits.
TEST(DstdrunTrace, ANodeStoppedByARuntimeErrorWritesItsEvents) {
  const std::string file = temp_trace_file();
  const run_result r = dstdrun({"-n", "2", "--trace", file, "--timeout", "60", node_fault(), "short_message", "1"});
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.err.find("dstd: node 1: "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("has no events"), std::string::npos) << r.err;
  const std::string json = read_file(file);
  ASSERT_EQ(json_syntax_error(json), "") << json.substr(0, 2000);
  EXPECT_NE(json.find("\"args\": {\"name\": \"node 1\"}"), std::string::npos) << json.substr(0, 2000);
}

// A run that hangs and is stopped by --timeout (or Ctrl-C) is where a trace
// is wanted most: every node writes its events as it is stopped.
TEST(DstdrunTrace, ARunStoppedByTheTimeoutHasEveryNodesEvents) {
  const std::string file = temp_trace_file();
  const run_result r = dstdrun({"-n", "3", "--trace", file, "--timeout", "3", trace_program(), "hang"});
  EXPECT_EQ(r.exit_code, 124) << describe(r);
  EXPECT_NE(r.out.find("counter 150"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("has no events"), std::string::npos) << r.err;
  const std::string json = read_file(file);
  ASSERT_EQ(json_syntax_error(json), "") << json.substr(0, 2000);
  EXPECT_EQ(nodes_with_events(json), (std::set<int>{0, 1, 2}));
}

TEST(DstdrunTrace, BadValuesAreUsageErrorsBeforeAnyNodeStarts) {
  const run_result no_file = dstdrun({"-n", "2", "--trace"});
  EXPECT_EQ(no_file.exit_code, 2);
  EXPECT_NE(no_file.err.find("option --trace needs a file name"), std::string::npos) << no_file.err;
  const run_result unwritable =
      dstdrun({"-n", "2", "--trace", "/nonexistent-dir/t.json", trace_program(), "count", "1"});
  EXPECT_EQ(unwritable.exit_code, 2);
  EXPECT_NE(unwritable.err.find("cannot write the trace file /nonexistent-dir/t.json"), std::string::npos)
      << unwritable.err;
  EXPECT_EQ(unwritable.out.find("counter"), std::string::npos) << "the program ran";
  run_result bad_size;
  run_options o;
  o.env = {"DSTD_TRACE_EVENTS=abc"};
  bad_size = dstdrun({"-n", "2", "--trace", temp_trace_file(), "--timeout", "60", trace_program(), "count", "1"}, o);
  EXPECT_NE(bad_size.exit_code, 0);
  EXPECT_NE(bad_size.err.find("DSTD_TRACE_EVENTS"), std::string::npos) << bad_size.err;
}

}  // namespace
}  // namespace dstd::test
