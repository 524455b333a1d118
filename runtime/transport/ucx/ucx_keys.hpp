// Memory keys: the chunks of this node's memory its peers may reach, and
// the keys this node holds for its peers' memory.
//
// Why on demand, in chunks: a partition reserves 64 GiB of address space,
// of which the heap uses a small part, and on RDMA devices registering
// memory pins it. So a home registers a chunk only when a peer first asks
// for its key (the transport's key request), and a peer asks once per
// chunk and keeps the key for the rest of the run: after warm-up no
// registration is on a fault's path.
#pragma once

#include <ucp/api/ucp.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

#include "runtime/transport/backend.hpp"

namespace dstd::rt::ucx {

inline constexpr std::uint64_t chunk_bytes = std::uint64_t{64} << 20;
inline std::uint64_t chunk_of(gaddr a) { return a / chunk_bytes; }
inline gaddr chunk_end(gaddr a) { return (chunk_of(a) + 1) * chunk_bytes; }

// This node's registrations. Thread-safe.
class home_keys {
 public:
  home_keys(ucp_context_h context, std::span<const memory_region> regions, node_id self);
  ~home_keys();
  home_keys(const home_keys&) = delete;
  home_keys& operator=(const home_keys&) = delete;

  // The packed key of `chunk`, registering the window of the part of it
  // inside a region homed here first. Empty when no such region touches the chunk.
  std::vector<std::byte> packed(std::uint64_t chunk);

 private:
  struct registered {
    ucp_mem_h memory;
    std::vector<std::byte> packed;
  };
  ucp_context_h context_;
  std::vector<memory_region> own_;
  std::mutex mutex_;
  std::unordered_map<std::uint64_t, registered> chunks_;
};

// Keys for peers' chunks, unpacked on their endpoints. Thread-safe.
class peer_keys {
 public:
  peer_keys() = default;
  ~peer_keys();
  peer_keys(const peer_keys&) = delete;
  peer_keys& operator=(const peer_keys&) = delete;

  // The key of `home`'s `chunk`, or nullptr when this node has none yet.
  ucp_rkey_h find(node_id home, std::uint64_t chunk);
  // Unpacks `packed` on `ep` and keeps it, unless another thread got there
  // first; returns the key kept.
  ucp_rkey_h add(node_id home, std::uint64_t chunk, ucp_ep_h ep, std::span<const std::byte> packed);

 private:
  static std::uint64_t key(node_id home, std::uint64_t chunk) {
    return (std::uint64_t{home} << 48) | chunk;
  }
  std::mutex mutex_;
  std::unordered_map<std::uint64_t, ucp_rkey_h> keys_;
};

}  // namespace dstd::rt::ucx
