// output_program: dstd threads on every node writing to stdout, for the
// tests of dstdrun's output forwarding (dstdrun_output_test.cpp).
//
//   output_program lines N LEN   a thread on each node writes N lines of LEN
//                                bytes with printf, all at once:
//                                "node K line I " then one letter repeated
//   output_program order ROUNDS  main starts a thread on each node in turn
//                                (the last one first), which writes 20
//                                lines "round R node K line I"; main joins it
//                                and writes "main after round R node K"
//   output_program hang          a thread on the last node writes
//                                "waiting on node K" and sleeps for an hour
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dstd/dstd.hpp>
#include <dstd/thread>
#include <string>
#include <vector>

namespace {

char fill_of(unsigned node, unsigned line) { return static_cast<char>('a' + (node * 7 + line) % 26); }

void write_lines(unsigned lines, unsigned len) {
  const unsigned node = dstd::this_node();
  for (unsigned i = 0; i < lines; ++i) {
    char head[64];
    const int n = std::snprintf(head, sizeof head, "node %u line %u ", node, i);
    std::string line(head, static_cast<std::size_t>(n));
    if (line.size() < len) line.append(len - line.size(), fill_of(node, i));
    line += '\n';
    std::fputs(line.c_str(), stdout);
  }
}

void in_order(unsigned rounds) {
  for (unsigned r = 0; r < rounds; ++r) {
    for (unsigned k = dstd::node_count(); k-- > 0;) {
      dstd::spawn_on(k, [r] {
        for (unsigned i = 0; i < 20; ++i)
          std::printf("round %u node %u line %u\n", r, dstd::this_node(), i);
      }).join();
      std::printf("main after round %u node %u\n", r, k);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && std::strcmp(argv[1], "lines") == 0) {
    const auto lines = static_cast<unsigned>(std::atoi(argv[2]));
    const auto len = static_cast<unsigned>(std::atoi(argv[3]));
    std::vector<dstd::thread> writers;
    for (unsigned k = 0; k < dstd::node_count(); ++k)
      writers.push_back(dstd::spawn_on(k, [lines, len] { write_lines(lines, len); }));
    for (dstd::thread& t : writers) t.join();
    return 0;
  }
  if (argc >= 3 && std::strcmp(argv[1], "order") == 0) {
    in_order(static_cast<unsigned>(std::atoi(argv[2])));
    return 0;
  }
  if (argc >= 2 && std::strcmp(argv[1], "hang") == 0) {
    dstd::spawn_on(dstd::node_count() - 1, [] {
      std::printf("waiting on node %u\n", dstd::this_node());
      std::fflush(stdout);  // seen at once, even when stdout is a file
      dstd::this_thread::sleep_for(std::chrono::hours(1));
    }).join();
    return 0;
  }
  std::fprintf(stderr, "usage: output_program lines N LEN | order ROUNDS | hang\n");
  return 2;
}
