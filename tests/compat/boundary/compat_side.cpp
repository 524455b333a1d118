// The boundary test's side built with compat/ (sides.inc).
#include <type_traits>

#define SIDE(name) compat_side_##name
#include "sides.inc"

static_assert(std::is_same_v<std::mutex, dstd::mutex>, "this side is built with compat/");
