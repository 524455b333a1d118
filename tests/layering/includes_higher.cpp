// Probe (tests/layering): the heap layer includes the control layer above
// it. Must fail to build, on this line.
#include "runtime/control/boot.hpp"
