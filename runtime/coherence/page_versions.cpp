// See page_versions.hpp.
#include "runtime/coherence/page_versions.hpp"

#include <atomic>

#include "runtime/common/layout.hpp"
#include "runtime/heap/address_space.hpp"

namespace dstd::rt::coherence {

namespace {

constexpr std::uint64_t summary_at = 0;     // diff epoch, then write epoch
constexpr std::uint64_t exported_at = 64;   // its own cache line
constexpr std::uint64_t versions_at = layout::page_bytes;

template <class T>
std::atomic_ref<T> word_at(std::uintptr_t a) {
  return std::atomic_ref<T>(*reinterpret_cast<T*>(a));
}

}  // namespace

void page_versions::init(const address_space& space) {
  space_ = &space;
  area_offset_ = layout::version_area_begin(space.partition_bytes);
  partition_pages_ = space.partition_bytes / layout::page_bytes;
}

gaddr page_versions::summary_address(node_id home) const {
  return space_->partition_base(home) + area_offset_ + summary_at;
}

gaddr page_versions::exported_address(node_id home) const {
  return space_->partition_base(home) + area_offset_ + exported_at;
}

// Partition pages are indexed from 0 up to nodes * partition pages; the
// static data's pages follow, all homed at node 0, whose versions follow
// its own partition's.
gaddr page_versions::version_address(std::uint64_t index) const {
  const std::uint64_t in_partitions = std::uint64_t(space_->nodes) * partition_pages_;
  const node_id home =
      index < in_partitions ? static_cast<node_id>(index / partition_pages_) : 0;
  const std::uint64_t slot =
      index < in_partitions ? index % partition_pages_ : partition_pages_ + (index - in_partitions);
  return space_->partition_base(home) + area_offset_ + versions_at + slot * sizeof(std::uint32_t);
}

void page_versions::bump_version(std::uintptr_t page_address) const {
  const location where = locate(reinterpret_cast<const void*>(page_address));
  const gaddr a = version_address(where.backing_offset / layout::page_bytes);
  // Release: a reader that sees the new version sees the bytes before it.
  word_at<std::uint32_t>(a).fetch_add(1, std::memory_order_release);
}

std::uint64_t page_versions::bump_diff_epoch() const {
  return word_at<std::uint64_t>(summary_address(space_->self) + 0)
      .fetch_add(1, std::memory_order_acq_rel);
}

void page_versions::note_release() const {
  const gaddr mine = space_->partition_base(space_->self) + area_offset_;
  if (word_at<std::uint64_t>(mine + exported_at).load(std::memory_order_relaxed) != 0) {
    word_at<std::uint64_t>(mine + summary_at + 8).fetch_add(1, std::memory_order_seq_cst);
  }
}

}  // namespace dstd::rt::coherence
