// See trace_merge.hpp.
#include "runtime/launch/trace_merge.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "runtime/common/launch_contract.hpp"
#include "runtime/launch/diag.hpp"
#include "runtime/launch/fd_io.hpp"

namespace dstd::launch {

bool merge_trace(const std::string& file, unsigned nodes) {
  std::string document = trace_document_head;
  std::string missing;
  bool first = true;
  for (unsigned n = 0; n < nodes; ++n) {
    const std::string part_path = trace_part_path(file, n);
    std::ifstream part(part_path, std::ios::binary);
    std::ostringstream events;
    if (part) events << part.rdbuf();
    ::unlink(part_path.c_str());
    if (events.str().empty()) {  // created at boot, never written: the node was killed
      missing += (missing.empty() ? "" : ", ") + std::to_string(n);
      continue;
    }
    document += first ? "" : ",\n";
    document += events.str();
    first = false;
  }
  document += trace_document_tail;
  if (!missing.empty()) {
    say("the trace in %s has no events of node%s %s: a node writes its events when the "
        "program ends, when it stops with an error or aborts, or when dstdrun stops it; "
        "not when it is killed or crashes",
        file.c_str(), missing.find(',') == std::string::npos ? "" : "s", missing.c_str());
  }
  if (!write_text_file(file, document)) {
    say("cannot write the trace to %s: %s", file.c_str(), std::strerror(errno));
    return false;
  }
  return true;
}

}  // namespace dstd::launch
