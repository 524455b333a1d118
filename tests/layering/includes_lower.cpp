// Probe (tests/layering): the heap layer includes itself and the layers
// below it. Must build.
#include "runtime/common/fatal.hpp"
#include "runtime/heap/partition.hpp"
#include "runtime/transport/transport.hpp"

int probe_includes_lower();
int probe_includes_lower() { return 0; }
