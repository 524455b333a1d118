// Memory keys: the chunks of this node's home memory its peers may reach,
// and the keys this node holds for its peers' chunks.
//
// Why on demand, in chunks: a partition reserves 64 GiB of address space,
// of which the heap uses a small part, and registering memory pins it
// (rxe, like most NICs, has no on-demand paging). So a home registers a
// chunk (its part inside regions homed here, at its window address, which
// peers use as the remote address) only when a peer first asks for its key
// (the transport's key request), and the peer keeps the key for the rest of
// the run: after warm-up no registration is on a fault's path. Chunks are
// smaller than ucx's (8 MiB, not 64): every registered byte is pinned RAM.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "runtime/transport/backend.hpp"

namespace dstd::rt::verbs {

inline constexpr std::uint64_t chunk_bytes = std::uint64_t{8} << 20;
inline std::uint64_t chunk_of(gaddr a) { return a / chunk_bytes; }

// This node's registrations. Thread-safe.
class home_keys {
 public:
  home_keys(ibv_pd* pd, std::span<const memory_region> regions, node_id self);
  ~home_keys();
  home_keys(const home_keys&) = delete;
  home_keys& operator=(const home_keys&) = delete;

  // The remote key of `chunk`, registering the window of its part inside a
  // region homed here first; nothing when no such region touches it.
  std::optional<std::uint32_t> rkey(std::uint64_t chunk);

 private:
  ibv_pd* pd_;
  std::vector<memory_region> own_;
  std::mutex mutex_;
  std::unordered_map<std::uint64_t, ibv_mr*> chunks_;
};

// Keys of peers' chunks. Thread-safe.
class peer_keys {
 public:
  std::optional<std::uint32_t> find(node_id home, std::uint64_t chunk);
  void add(node_id home, std::uint64_t chunk, std::uint32_t rkey);

 private:
  static std::uint64_t key(node_id home, std::uint64_t chunk) {
    return (std::uint64_t{home} << 48) | chunk;
  }
  std::mutex mutex_;
  std::unordered_map<std::uint64_t, std::uint32_t> keys_;
};

}  // namespace dstd::rt::verbs
