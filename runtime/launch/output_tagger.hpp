// --tag-output: a node's output, line by line, with "[node k] " in front.
//
// Why: with many nodes writing to one terminal, a reader needs to know which
// node said what, and lines of different nodes must not be cut into each
// other. Each node's stdout and stderr arrive through a pipe of their own;
// one tagger per pipe keeps the partial line it has seen so far and writes
// only whole, prefixed lines (many at once, but always in one write).
#pragma once

#include <cstddef>
#include <string>

namespace dstd::launch {

class output_tagger {
 public:
  // A line longer than this is cut and written in pieces.
  static constexpr std::size_t max_line = 64 * 1024;

  output_tagger(unsigned node, int dest_fd);

  // Forwards every complete line in [data, data+len); keeps the rest.
  void feed(const char* data, std::size_t len);
  // Writes a partial last line, ending it with a newline.
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
