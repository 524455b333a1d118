// See verbs_keys.hpp.
#include "runtime/transport/verbs/verbs_keys.hpp"

#include <cerrno>
#include <cstring>

#include "runtime/common/fatal.hpp"
#include "runtime/transport/home_window.hpp"
#include "runtime/transport/region_table.hpp"

namespace dstd::rt::verbs {

home_keys::home_keys(ibv_pd* pd, std::span<const memory_region> regions, node_id self) : pd_(pd) {
  for (const memory_region& r : regions) {
    if (r.home == self && r.end > r.begin) own_.push_back(r);
  }
}

home_keys::~home_keys() {
  for (auto& [chunk, mr] : chunks_) ibv_dereg_mr(mr);
}

std::optional<std::uint32_t> home_keys::rkey(std::uint64_t chunk) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = chunks_.find(chunk); it != chunks_.end()) return it->second->rkey;
  const gaddr begin = chunk * chunk_bytes;
  if (auto part = first_part_inside(own_, begin, begin + chunk_bytes)) {
    const gaddr from = part->from;
    const gaddr to = part->to;
    ibv_mr* mr = ibv_reg_mr(pd_, home_window::of(*part->region, from), to - from,
                            IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
                                IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
    if (mr == nullptr) {
      fatal("verbs: cannot register %lu bytes of home memory at %#lx: %s (is the locked-memory "
            "limit, ulimit -l, too low?)", static_cast<unsigned long>(to - from),
            static_cast<unsigned long>(from), std::strerror(errno));
    }
    chunks_.emplace(chunk, mr);
    return mr->rkey;
  }
  return std::nullopt;
}

std::optional<std::uint32_t> peer_keys::find(node_id home, std::uint64_t chunk) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = keys_.find(key(home, chunk));
  if (it == keys_.end()) return std::nullopt;
  return it->second;
}

void peer_keys::add(node_id home, std::uint64_t chunk, std::uint32_t rkey) {
  std::lock_guard<std::mutex> lock(mutex_);
  keys_.emplace(key(home, chunk), rkey);
}

}  // namespace dstd::rt::verbs
