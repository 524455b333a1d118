// See ucx_keys.hpp.
#include "runtime/transport/ucx/ucx_keys.hpp"

#include "runtime/transport/home_window.hpp"
#include "runtime/transport/region_table.hpp"
#include "runtime/transport/ucx/ucx_status.hpp"

namespace dstd::rt::ucx {

home_keys::home_keys(ucp_context_h context, std::span<const memory_region> regions, node_id self)
    : context_(context) {
  for (const memory_region& r : regions) {
    if (r.home == self && r.end > r.begin) own_.push_back(r);
  }
}

home_keys::~home_keys() {
  for (auto& [chunk, r] : chunks_) ucp_mem_unmap(context_, r.memory);
}

std::vector<std::byte> home_keys::packed(std::uint64_t chunk) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = chunks_.find(chunk); it != chunks_.end()) return it->second.packed;
  const gaddr begin = chunk * chunk_bytes;
  if (auto part = first_part_inside(own_, begin, begin + chunk_bytes)) {
    ucp_mem_map_params_t params{};
    params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    params.address = home_window::of(*part->region, part->from);
    params.length = part->to - part->from;
    registered reg{};
    check(ucp_mem_map(context_, &params, &reg.memory), "registering home memory (ucp_mem_map)");
    void* buffer = nullptr;
    std::size_t size = 0;
    check(ucp_rkey_pack(context_, reg.memory, &buffer, &size), "packing a memory key");
    const auto* bytes = static_cast<const std::byte*>(buffer);
    reg.packed.assign(bytes, bytes + size);
    ucp_rkey_buffer_release(buffer);
    return chunks_.emplace(chunk, std::move(reg)).first->second.packed;
  }
  return {};
}

peer_keys::~peer_keys() {
  for (auto& [k, rkey] : keys_) ucp_rkey_destroy(rkey);
}

ucp_rkey_h peer_keys::find(node_id home, std::uint64_t chunk) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = keys_.find(key(home, chunk));
  return it == keys_.end() ? nullptr : it->second;
}

ucp_rkey_h peer_keys::add(node_id home, std::uint64_t chunk, ucp_ep_h ep,
                          std::span<const std::byte> packed) {
  ucp_rkey_h rkey = nullptr;
  check(ucp_ep_rkey_unpack(ep, packed.data(), &rkey), "unpacking a peer's memory key");
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, inserted] = keys_.emplace(key(home, chunk), rkey);
  if (!inserted) ucp_rkey_destroy(rkey);
  return it->second;
}

}  // namespace dstd::rt::ucx
