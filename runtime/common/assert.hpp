// Checks of the runtime's internal invariants, on in Debug builds.
//
// Why not <cassert>: a broken invariant must end the run the way every dstd
// error does (fatal.hpp: one line naming the node, exit status 1, dstdrun
// stops the other nodes), and say which state was wrong, not only which
// expression. Release builds (NDEBUG) compile the check away without
// evaluating it (inside sizeof, so its variables still count as used and
// its format is still checked); the condition must have no side effects.
//
//   DSTD_ASSERT(st == page_state::dirty, "page %lu in state %d", index, int(st));
#pragma once

#include "runtime/common/fatal.hpp"

#ifdef NDEBUG
#define DSTD_ASSERT(cond, ...) \
  static_cast<void>(sizeof(((cond) ? void() : ::dstd::rt::fatal(__VA_ARGS__)), 0))
#else
#define DSTD_ASSERT(cond, fmt, ...)                                                          \
  ((cond) ? static_cast<void>(0)                                                             \
          : ::dstd::rt::fatal("internal error at %s:%d: %s is false: " fmt, __FILE__, __LINE__, \
                              #cond __VA_OPT__(, ) __VA_ARGS__))
#endif
