// Finding PROGRAM the way execvp would, before any node is started.
//
// Why: a missing or non-executable program must be a clear argument error
// from dstdrun (exit 2), not N copies of an exec failure from the nodes. The
// path found here is the one every node execs, so all nodes run the same file.
#pragma once

#include <string>

namespace dstd::launch {

// Resolves `program`: a name with a slash is taken as a path, a name without
// one is searched in $PATH. On success stores the path in `found` and returns
// true; otherwise stores a message ("not found in PATH", "is a directory",
// ...) in `error` and returns false.
bool find_program(const std::string& program, std::string& found, std::string& error);

}  // namespace dstd::launch
