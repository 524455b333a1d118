// A node's output, forwarded in whole lines (with "[node k] " in front
// under --tag-output).
//
// Why: nodes writing to one terminal or file at once would cut each
// other's lines: stdio writes a full buffer wherever it ends, mid-line. So
// each node's stdout and stderr arrive through a pipe of their own; one
// forwarder per pipe keeps the partial line it has seen so far and writes
// only whole lines (many at once, but always in one write), so a line of
// one node is never cut by another's. A line longer than max_line is cut
// into lines of max_line bytes.
#pragma once

#include <cstddef>
#include <string>

namespace dstd::launch {

class line_forwarder {
 public:
  static constexpr std::size_t max_line = 64 * 1024;

  // `prefix` goes in front of every line ("" for none).
  line_forwarder(std::string prefix, int dest_fd);

  // Forwards every complete line in [data, data+len); keeps the rest.
  void feed(const char* data, std::size_t len);
  // The stream is over: writes a partial last line (ended with a newline
  // when lines are prefixed, as it was otherwise).
  void flush();

 private:
  void emit(const char* line, std::size_t len, std::string& out) const;
  void write_out(const std::string& out);

  std::string prefix_;
  int dest_fd_;
  bool dest_broken_ = false;  // e.g. stdout closed: drop instead of failing
  std::string partial_;
};

}  // namespace dstd::launch
