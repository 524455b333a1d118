// Creation of the shm transport's segments; see shm_segments.hpp.
#include "runtime/transport/shm/shm_segments.hpp"

#include "runtime/common/layout.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <new>

namespace dstd::rt::shm {

namespace {
constexpr std::size_t round_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }
}  // namespace

control_layout control_layout::for_nodes(unsigned nodes) {
  control_layout l{};
  l.nodes = nodes;
  l.slots_offset = round_up(sizeof(control_header), layout::page_bytes);
  l.replies_offset = round_up(l.slots_offset + nodes * sizeof(join_slot), layout::page_bytes);
  l.rings_offset = round_up(l.replies_offset + std::size_t(nodes) * reply_slots_per_node * sizeof(reply_slot),
                            layout::page_bytes);
  l.ring_stride = round_up(sizeof(ring_header), layout::page_bytes) + ring_data_bytes;
  l.total_bytes = l.rings_offset + std::size_t(nodes) * nodes * l.ring_stride;
  return l;
}

bool create_segments(unsigned nodes, std::uint64_t partition_bytes, segment_fds& out) {
  const control_layout layout = control_layout::for_nodes(nodes);
  int control = memfd_create("dstd-control", 0);
  if (control < 0) return false;
  int heap = memfd_create("dstd-heap", 0);
  if (heap < 0 || ftruncate(control, static_cast<off_t>(layout.total_bytes)) != 0 ||
      ftruncate(heap, static_cast<off_t>(nodes * partition_bytes + layout::static_region_max)) != 0) {
    int saved = errno;
    close(control);
    if (heap >= 0) close(heap);
    errno = saved;
    return false;
  }
  // Only the header needs writing: a fresh memfd reads as zeros, which is the
  // initial state of every slot and ring.
  void* p = mmap(nullptr, sizeof(control_header), PROT_READ | PROT_WRITE, MAP_SHARED, control, 0);
  if (p == MAP_FAILED) {
    int saved = errno;
    close(control);
    close(heap);
    errno = saved;
    return false;
  }
  auto* header = new (p) control_header{};
  header->magic = control_magic;
  header->version = control_version;
  header->nodes = nodes;
  header->partition_bytes = partition_bytes;
  header->ring_data_bytes = ring_data_bytes;
  munmap(p, sizeof(control_header));
  out.control_fd = control;
  out.heap_fd = heap;
  return true;
}

}  // namespace dstd::rt::shm
