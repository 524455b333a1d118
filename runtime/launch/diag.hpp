// dstdrun's own messages to the user.
//
// Why a file of its own: every message dstdrun prints starts with
// "dstdrun: " and must reach stderr as one write, so that it never
// interleaves with a line a node is printing at the same moment. Funnelling
// all of them through say() keeps that true everywhere.
#pragma once

namespace dstd::launch {

// Prints "dstdrun: <formatted text>\n" to stderr in one write.
void say(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// The one-line hint printed after a wrong argument.
inline constexpr const char* usage_hint =
    "usage: dstdrun -n N [options] PROGRAM [ARGS...]; see dstdrun --help";

// "1 node", "3 nodes".
inline const char* nodes_word(unsigned n) { return n == 1 ? "node" : "nodes"; }

}  // namespace dstd::launch
