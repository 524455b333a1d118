// dstdrun forwards each node's output in whole lines, tagged or not, and a
// thread's complete lines are out before what its joiner writes after the
// join (output_program.cpp writes them; docs/DESIGN.md §8).
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "launch_test_util.hpp"

namespace dstd::test {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// "[node K] " in front of a line, when tagged: removed, and K returned.
std::string untag(const std::string& line, bool tagged, std::string& tag_node) {
  if (!tagged) return line;
  static const std::regex tag(R"(^\[node (\d+)\] )");
  std::smatch m;
  if (!std::regex_search(line, m, tag)) return line;
  tag_node = m[1];
  return line.substr(static_cast<std::size_t>(m.length(0)));
}

// Every line is one that some node wrote, whole: "node K line I " and then
// LEN-long filling of the letter that K and I choose; each exactly once.
void expect_whole_lines(const run_result& r, unsigned nodes, unsigned count, unsigned len,
                        bool tagged) {
  static const std::regex head(R"(^node (\d+) line (\d+) )");
  std::set<std::pair<unsigned, unsigned>> seen;
  unsigned bad = 0;
  for (const std::string& tagged_line : lines_of(r.out)) {
    std::string tag_node;
    const std::string line = untag(tagged_line, tagged, tag_node);
    std::smatch m;
    bool ok = std::regex_search(line, m, head) && line.size() == len;
    if (ok) {
      const auto k = static_cast<unsigned>(std::stoul(m[1]));
      const auto i = static_cast<unsigned>(std::stoul(m[2]));
      const char fill = static_cast<char>('a' + (k * 7 + i) % 26);
      ok = line.find_first_not_of(fill, static_cast<std::size_t>(m.length(0))) ==
               std::string::npos &&
           seen.insert({k, i}).second && (!tagged || tag_node == m[1].str());
    }
    if (!ok && ++bad <= 3) ADD_FAILURE() << "not a whole line: " << line.substr(0, 120) << "...";
  }
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(nodes) * count);
}

TEST(DstdrunOutput, LinesOfDifferentNodesNeverInterleave) {
  for (const char* nodes : {"2", "4"}) {
    const run_result r = dstdrun({"-n", nodes, "--timeout", "60", output_program(), "lines",
                                  "300", "5000"});
    ASSERT_EQ(r.exit_code, 0) << describe(r).substr(0, 2000);
    expect_whole_lines(r, static_cast<unsigned>(std::stoul(nodes)), 300, 5000, false);
  }
}

TEST(DstdrunOutput, TaggedLinesOfDifferentNodesNeverInterleave) {
  const run_result r = dstdrun({"-n", "4", "--tag-output", "--timeout", "60", output_program(),
                                "lines", "300", "5000"});
  ASSERT_EQ(r.exit_code, 0) << describe(r).substr(0, 2000);
  expect_whole_lines(r, 4, 300, 5000, true);
}

// What output_program order writes, in the order threads and main wrote
// it: main starts each thread after its previous line and writes its next
// line after joining it (tagged: with the node that wrote the line).
std::string expected_order(unsigned nodes, unsigned rounds, bool tagged) {
  std::string out;
  for (unsigned r = 0; r < rounds; ++r) {
    for (unsigned k = nodes; k-- > 0;) {
      const std::string thread_tag = tagged ? "[node " + std::to_string(k) + "] " : "";
      for (unsigned i = 0; i < 20; ++i)
        out += thread_tag + "round " + std::to_string(r) + " node " + std::to_string(k) +
               " line " + std::to_string(i) + "\n";
      out += std::string(tagged ? "[node 0] " : "") + "main after round " + std::to_string(r) +
             " node " + std::to_string(k) + "\n";
    }
  }
  return out;
}

// Lines written before a thread on another node starts come before its
// lines; its lines come before what its joiner writes after join().
TEST(DstdrunOutput, StartAndJoinOrderLinesAcrossNodes) {
  for (const char* nodes : {"2", "4"}) {
    const run_result r =
        dstdrun({"-n", nodes, "--timeout", "60", output_program(), "order", "20"});
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_EQ(r.out, expected_order(static_cast<unsigned>(std::stoul(nodes)), 20, false));
  }
  const run_result r =
      dstdrun({"-n", "3", "--tag-output", "--timeout", "60", output_program(), "order", "20"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out, expected_order(3, 20, true));
}

// With dstdrun writing to a terminal, a node's stdout is line-buffered as
// it would be writing there itself: a line is out at once, not when the
// buffer fills or the thread ends (this thread never ends; the run is
// stopped by --timeout, which loses whatever is still buffered).
TEST(DstdrunOutput, NodesLineBufferStdoutWhenDstdrunWritesToATerminal) {
  if (access("/usr/bin/script", X_OK) != 0) GTEST_SKIP() << "needs script(1) for a terminal";
  const std::string command = std::string(DSTDRUN_PATH) + " -n 2 --timeout 3 " +
                              output_program() + " hang";
  const run_result r = run_process({"/usr/bin/script", "-qec", command, "/dev/null"});
  EXPECT_EQ(r.exit_code, 124) << describe(r);
  EXPECT_TRUE(contains(r.out, "waiting on node 1")) << describe(r);
}

}  // namespace
}  // namespace dstd::test
