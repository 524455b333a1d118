// The wire format of the launcher's wire-up exchange (DSTD_WIREUP).
//
// Why: a network backend (ucx, verbs) must learn every peer's address before
// it can send anything, and nodes on several hosts share no memory to leave
// it in. dstdrun runs a small TCP server for one round: each node connects,
// sends its blob (its join record and its backend's address), and receives
// every node's blob, indexed by node id. This header is the one definition
// of that format, shared by the node side (wireup.cpp) and dstdrun's server
// (runtime/launch/wireup_server.cpp). All integers are little-endian, as
// on every host dstd runs on.
//
//   node -> dstdrun   hello, then hello.blob_bytes bytes
//   dstdrun -> node   table, then for each node 0..nodes-1: u32 length, bytes
//                     or, when dstdrun refuses the hello: table with
//                     nodes == 0, then u32 length and a message (text)
#pragma once

#include <cstdint>

namespace dstd::wireup {

inline constexpr std::uint32_t magic = 0x55575344;  // "DSWU"
inline constexpr std::uint32_t version = 1;
inline constexpr std::uint32_t max_blob_bytes = 64 * 1024;

struct hello {
  std::uint32_t magic;
  std::uint32_t version;
  std::uint32_t node;
  std::uint32_t nodes;
  std::uint32_t blob_bytes;
};

struct table {
  std::uint32_t magic;
  std::uint32_t nodes;  // 0: refused (a message follows)
};

}  // namespace dstd::wireup
