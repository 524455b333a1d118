// The kernel's interface for tracking which pages a process wrote, spelled
// out: userfaultfd's asynchronous write-protect (UFFD_FEATURE_WP_ASYNC) and
// the PAGEMAP_SCAN ioctl of /proc/self/pagemap, both Linux 6.7
// (include/uapi/linux/userfaultfd.h and fs.h there).
//
// Why spelled out: Debian 12's kernel headers (6.1) predate them, and the
// binary must still build there and find out at run time whether the
// kernel it runs on has them. Used by own_writes.cpp and by
// bench/write_tracking_floor.cpp; nothing else, no dstd.
#pragma once

#include <sys/ioctl.h>

#include <cstdint>

namespace dstd::rt::write_tracking_abi {

// UFFDIO_API feature: write faults on write-protected pages are resolved
// by the kernel, which only marks the page written (no message, no thread).
inline constexpr std::uint64_t feature_wp_async = 1u << 15;

// PAGEMAP_SCAN: a page category, and the flags of one scan.
inline constexpr std::uint64_t page_is_written = 1u << 1;
inline constexpr std::uint64_t scan_wp_matching = 1u << 0;    // protect what matches again
inline constexpr std::uint64_t scan_check_wpasync = 1u << 1;  // fail on an untracked range

struct scan_arg {
  std::uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages, category_inverted,
      category_mask, category_anyof_mask, return_mask;
};
struct page_region {
  std::uint64_t start, end, categories;
};
inline constexpr unsigned long pagemap_scan = _IOWR('f', 16, scan_arg);

}  // namespace dstd::rt::write_tracking_abi
