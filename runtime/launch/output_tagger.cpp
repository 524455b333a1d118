// Line-by-line tagging of node output; see output_tagger.hpp.
#include "runtime/launch/output_tagger.hpp"

#include <cstring>

#include "runtime/launch/fd_io.hpp"

namespace dstd::launch {

output_tagger::output_tagger(unsigned node, int dest_fd)
    : prefix_("[node " + std::to_string(node) + "] "), dest_fd_(dest_fd) {}

void output_tagger::emit(const char* line, std::size_t len, std::string& out) const {
  out += prefix_;
  out.append(line, len);
  out += '\n';
}

void output_tagger::write_out(const std::string& out) {
  if (out.empty() || dest_broken_) return;
  if (!write_all(dest_fd_, out.data(), out.size())) dest_broken_ = true;
}

void output_tagger::feed(const char* data, std::size_t len) {
  std::string out;
  const char* end = data + len;
  while (data < end) {
    const void* nl = std::memchr(data, '\n', static_cast<std::size_t>(end - data));
    if (nl == nullptr) {
      partial_.append(data, static_cast<std::size_t>(end - data));
      break;
    }
    const char* line_end = static_cast<const char*>(nl);
    const std::size_t n = static_cast<std::size_t>(line_end - data);
    if (partial_.empty()) {
      emit(data, n, out);
    } else {
      partial_.append(data, n);
      emit(partial_.data(), partial_.size(), out);
      partial_.clear();
    }
    data = line_end + 1;
  }
  while (partial_.size() >= max_line) {
    emit(partial_.data(), max_line, out);
    partial_.erase(0, max_line);
  }
  write_out(out);
}

void output_tagger::flush() {
  if (partial_.empty()) return;
  std::string out;
  emit(partial_.data(), partial_.size(), out);
  partial_.clear();
  write_out(out);
}

}  // namespace dstd::launch
