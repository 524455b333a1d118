// A program linked with the static libdstd (libdstd.a) has every runtime
// message handler, although it references none of their files itself: the
// linker takes from an archive only the object files something refers to,
// and the handler list (dstd/runtime_handlers.cpp) is what refers to them.
#include <gtest/gtest.h>

#include "runtime/transport/handler_ids.hpp"

namespace {

using namespace dstd::rt;

TEST(StaticLibdstd, EveryRuntimeHandlerIsRegistered) {
  for (handler_id id = 1; id <= handler_ids::last_runtime_handler; ++id) {
    EXPECT_NE(find_handler(id), nullptr) << "no handler for " << handler_name(id);
  }
}

}  // namespace
