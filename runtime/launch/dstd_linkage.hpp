// Does PROGRAM link libdstd? Read from its ELF file before any node starts.
//
// Why: a program without libdstd does not take part in a run: each of the N
// copies runs the whole program on its own (N times the output, N times the
// side effects), and dstdrun would only notice after the fact, when a copy
// ends without having joined. A program linked with the static libdstd.a
// runs on one node only (README, "Limits"). The dynamic section says which
// shared libraries the program needs (DT_NEEDED); the symbol tables tell a
// statically linked runtime. A file that is not an ELF executable (a script
// that starts the real program) is not judged.
#pragma once

#include <string>

namespace dstd::launch {

enum class dstd_linkage {
  shared,     // DT_NEEDED names libdstd.so: a dstd program
  static_lib, // defines the runtime's symbols itself: libdstd.a, one node only
  none,       // an ELF program without libdstd
  unknown,    // not an ELF file this host runs (a script, ...), or unreadable
};

dstd_linkage find_dstd_linkage(const std::string& path);

}  // namespace dstd::launch
