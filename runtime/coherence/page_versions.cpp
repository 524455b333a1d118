// See page_versions.hpp.
#include "runtime/coherence/page_versions.hpp"

#include <atomic>

#include "runtime/common/layout.hpp"
#include "runtime/heap/address_space.hpp"

namespace dstd::rt::coherence {

namespace {

constexpr std::uint64_t summary_at = 0;     // notice count, then write epoch
constexpr std::uint64_t exported_at = 64;   // its own cache line
constexpr std::uint64_t reserved_at = 128;  // its own cache line
constexpr std::uint64_t apply_lock_at = 192;  // its own cache line
constexpr std::uint64_t notices_at = layout::page_bytes;
constexpr std::uint64_t versions_at = notices_at + layout::notice_capacity * 8;

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

node_id page_versions::self() const { return space_->self; }

gaddr page_versions::summary_address(node_id home) const {
  return space_->partition_base(home) + area_offset_ + summary_at;
}

gaddr page_versions::exported_address(node_id home) const {
  return space_->partition_base(home) + area_offset_ + exported_at;
}

gaddr page_versions::reserved_address(node_id home) const {
  return space_->partition_base(home) + area_offset_ + reserved_at;
}

gaddr page_versions::apply_lock_address(node_id home) const {
  return space_->partition_base(home) + area_offset_ + apply_lock_at;
}

gaddr page_versions::notice_address(node_id home, std::uint64_t n) const {
  return space_->partition_base(home) + area_offset_ + notices_at +
         (n % layout::notice_capacity) * sizeof(std::uint64_t);
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

void page_versions::note_release() const {
  if (word_at<std::uint64_t>(exported_address(space_->self)).load(std::memory_order_relaxed) !=
      0) {
    word_at<std::uint64_t>(write_epoch_address(space_->self))
        .fetch_add(1, std::memory_order_seq_cst);
  }
}

}  // namespace dstd::rt::coherence
