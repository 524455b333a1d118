// What travels in a verbs SEND: a header, then the kind's body.
//
// Why one format for everything two-sided: a node has one shared receive
// queue, so every message (the program's sends, calls and replies, and the
// backend's own key and atomic requests) lands in the same buffers and is
// told apart by its kind. Replies, keys and atomics are answered by
// whichever thread polls the completion queue, never by a handler, so a
// node whose service thread is busy in a handler still serves them.
#pragma once

#include <cstdint>

namespace dstd::rt::verbs {

enum class wire_kind : std::uint8_t {
  send,            // a handler to run; no reply
  call,            // a handler to run; cookie: the caller's pending call
  reply,           // cookie: the call's
  key_request,     // body: the chunk; cookie: the requester's wait
  key_reply,       // body: key_answer
  atomic_request,  // body: atomic_operands; op: atomic_op; cookie: the requester's wait
  atomic_reply,    // body: the word's old value
};

enum class atomic_op : std::uint8_t { compare_swap, fetch_add };

struct wire_header {
  std::uint32_t from;
  std::uint16_t handler;
  wire_kind kind;
  atomic_op op;
  std::uint64_t cookie;
};
static_assert(sizeof(wire_header) == 16);

struct key_answer {
  std::uint32_t found;  // 0: no memory homed there
  std::uint32_t rkey;
};

// compare_swap: operand is the expected value; fetch_add: the addend.
struct atomic_operands {
  std::uint64_t target;  // a global address
  std::uint64_t operand;
  std::uint64_t desired;
};

}  // namespace dstd::rt::verbs
