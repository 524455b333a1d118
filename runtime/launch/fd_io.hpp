// Small file-descriptor helpers shared by dstdrun's pieces.
//
// Why: dstdrun works on raw descriptors (pipes, memfds, a signalfd) across
// fork and exec, where the flags on each descriptor decide what a node
// inherits. These helpers keep that handling in one place and retry EINTR.
#pragma once

#include <cstddef>
#include <string>

namespace dstd::launch {

// Writes all of [data, data+len) to fd, retrying short writes and EINTR.
// Returns false on any other error (errno set), e.g. EPIPE.
bool write_all(int fd, const void* data, std::size_t len);

// Replaces the file at `path` (created 0644) with `text`; false on an error
// (errno set).
bool write_text_file(const std::string& path, const std::string& text);

bool set_cloexec(int fd, bool on);
bool set_nonblocking(int fd);

// Makes sure descriptors 0, 1 and 2 are open (on /dev/null if they were
// closed), so that pipes created later never land on them.
void ensure_standard_fds();

// Closes fd if it is >= 0 and sets it to -1.
void close_fd(int& fd);

}  // namespace dstd::launch
