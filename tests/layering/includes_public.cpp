// Probe (tests/layering): the runtime (here its top layer, control)
// includes a public header. Must fail to build, on this line.
#include <dstd/dstd.hpp>
