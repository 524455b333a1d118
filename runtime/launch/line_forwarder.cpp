// Line-by-line forwarding of node output; see line_forwarder.hpp.
#include "runtime/launch/line_forwarder.hpp"

#include <cstring>
#include <utility>

#include "runtime/launch/fd_io.hpp"

namespace dstd::launch {

line_forwarder::line_forwarder(std::string prefix, int dest_fd)
    : prefix_(std::move(prefix)), dest_fd_(dest_fd) {}

void line_forwarder::emit(const char* line, std::size_t len, std::string& out) const {
  out += prefix_;
  out.append(line, len);
  out += '\n';
}

void line_forwarder::write_out(const std::string& out) {
  if (out.empty() || dest_broken_) return;
  if (!write_all(dest_fd_, out.data(), out.size())) dest_broken_ = true;
}

void line_forwarder::feed(const char* data, std::size_t len) {
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

void line_forwarder::flush() {
  if (partial_.empty()) return;
  std::string out;
  if (prefix_.empty()) {
    out.swap(partial_);
  } else {
    emit(partial_.data(), partial_.size(), out);
  }
  partial_.clear();
  write_out(out);
}

}  // namespace dstd::launch
