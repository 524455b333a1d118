// dstdrun --stats: the nodes' counters as one aligned table on stderr (a
// row per node, a column per counter, a total row that is the column's
// sum), or as JSON in a file with --stats=json FILE; bad values are usage
// errors before any node starts (docs/DESIGN.md §8).
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "launch_test_util.hpp"

namespace dstd::test {
namespace {

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// The table's lines: from the header (first word "node") to "total".
std::vector<std::string> table_lines(const std::string& err) {
  std::vector<std::string> lines;
  std::istringstream in(err);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    const std::vector<std::string> w = words_of(line);
    if (!inside && !w.empty() && w[0] == "node" && w.size() > 1 && w[1] == "read_faults") inside = true;
    if (inside) lines.push_back(line);
    if (inside && !w.empty() && w[0] == "total") break;
  }
  return lines;
}

TEST(DstdrunStats, OneAlignedTableWithARowPerNodeAndTheirTotal) {
  const run_result r = dstdrun({"-n", "4", "--stats", "--timeout", "60", output_program(),
                                "lines", "20", "100"});
  ASSERT_EQ(r.exit_code, 0) << describe(r).substr(0, 2000);
  const std::vector<std::string> lines = table_lines(r.err);
  ASSERT_EQ(lines.size(), 6u) << r.err;  // header, nodes 0..3, total
  const std::vector<std::string> header = words_of(lines[0]);
  EXPECT_GE(header.size(), 10u);
  std::vector<unsigned long long> sums(header.size(), 0);
  for (std::size_t k = 1; k <= 4; ++k) {
    const std::vector<std::string> row = words_of(lines[k]);
    ASSERT_EQ(row.size(), header.size()) << lines[k];
    EXPECT_EQ(row[0], std::to_string(k - 1));
    EXPECT_EQ(lines[k].size(), lines[0].size()) << "not aligned: " << lines[k];
    for (std::size_t c = 1; c < row.size(); ++c) sums[c] += std::stoull(row[c]);
  }
  const std::vector<std::string> total = words_of(lines[5]);
  ASSERT_EQ(total.size(), header.size());
  EXPECT_EQ(lines[5].size(), lines[0].size());
  for (std::size_t c = 1; c < total.size(); ++c) {
    EXPECT_EQ(std::stoull(total[c]), sums[c]) << header[c];
  }
  // Threads ran on every node, which talked: messages were counted.
  for (std::size_t c = 1; c < header.size(); ++c) {
    if (header[c] == "messages_sent") {
      EXPECT_GT(std::stoull(total[c]), 0u);
    }
  }
  EXPECT_EQ(r.err.find("dstd stats: node"), std::string::npos) << "per-node lines as well";
}

TEST(DstdrunStats, JsonFileHoldsTheSameCountersAndNothingIsPrinted) {
  const std::string file = testing::TempDir() + "dstdrun_stats_" + std::to_string(getpid()) + ".json";
  scripts_written.paths.push_back(file);
  const run_result r = dstdrun({"-n", "2", "--stats=json", file, "--timeout", "60",
                                output_program(), "lines", "20", "100"});
  ASSERT_EQ(r.exit_code, 0) << describe(r).substr(0, 2000);
  EXPECT_TRUE(table_lines(r.err).empty()) << r.err;
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  const std::string json = text.str();
  EXPECT_NE(json.find("{\"nodes\": ["), std::string::npos) << json;
  EXPECT_NE(json.find("{\"node\": 0, \"read_faults\": "), std::string::npos) << json;
  EXPECT_NE(json.find("{\"node\": 1, \"read_faults\": "), std::string::npos) << json;
  // The total of a counter is the sum of the nodes' values.
  const std::regex sent(R"re("messages_sent": (\d+))re");
  std::vector<unsigned long long> values;
  for (auto it = std::sregex_iterator(json.begin(), json.end(), sent); it != std::sregex_iterator(); ++it) {
    values.push_back(std::stoull((*it)[1]));
  }
  ASSERT_EQ(values.size(), 3u) << json;  // node 0, node 1, total
  EXPECT_EQ(values[2], values[0] + values[1]);
  EXPECT_GT(values[2], 0u);
}

TEST(DstdrunStats, BadValuesAreUsageErrorsBeforeAnyNodeStarts) {
  const run_result bogus = dstdrun({"-n", "2", "--stats=bogus", output_program(), "lines", "1", "10"});
  EXPECT_EQ(bogus.exit_code, 2);
  EXPECT_NE(bogus.err.find("option --stats takes no value, =table or =json FILE"), std::string::npos)
      << bogus.err;
  const run_result no_file = dstdrun({"-n", "2", "--stats=json"});
  EXPECT_EQ(no_file.exit_code, 2);
  EXPECT_NE(no_file.err.find("--stats=json needs a file name"), std::string::npos) << no_file.err;
  const run_result unwritable = dstdrun({"-n", "2", "--stats=json", "/nonexistent-dir/s.json",
                                         output_program(), "lines", "1", "10"});
  EXPECT_EQ(unwritable.exit_code, 2);
  EXPECT_NE(unwritable.err.find("cannot write the statistics file /nonexistent-dir/s.json"),
            std::string::npos)
      << unwritable.err;
  EXPECT_EQ(unwritable.out.find("node 0 line"), std::string::npos) << "a node ran";
}

}  // namespace
}  // namespace dstd::test
