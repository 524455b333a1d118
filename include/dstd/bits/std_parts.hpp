// Internal: the pieces of the standard library that dstd's public headers
// need from headers that compat/ shadows (docs/DESIGN.md, "The header
// rule"). compat/'s <atomic>, <mutex>, <condition_variable>, ... include
// dstd's headers and then the real ones; a dstd header that included one of
// those would re-enter compat's copy and get nothing. So the pieces come
// from the libstdc++ internal headers that define them, which compat/ leaves
// alone, and this is the one file that names them.
#pragma once

#include <cstddef>  // defines _GLIBCXX_RELEASE

#if !defined(__GLIBCXX__) || _GLIBCXX_RELEASE != 12
#error "dstd's headers are tested with libstdc++ 12 (GCC 12) only: they use its internal headers"
#endif

#include <bits/alloc_traits.h>  // std::allocator_traits (allocate_shared)
#include <bits/allocator.h>    // std::allocator (make_shared's allocator)
#include <bits/atomic_base.h>  // std::memory_order and its constants, std::atomic_thread_fence
#include <bits/ptr_traits.h>   // std::pointer_traits, std::to_address (allocators' pointers)
#include <bits/unique_lock.h>  // std::unique_lock; lock_guard and the lock tags (bits/std_mutex.h)
#include <bits/uses_allocator.h>  // std::allocator_arg_t, std::uses_allocator (promise)

// std::cv_status is defined in <condition_variable> itself; its opaque
// declaration is enough here, with libstdc++'s values (checked against the
// real definition by tests/header_rule).
namespace std {
enum class cv_status;
}  // namespace std

// std::bad_weak_ptr, which dstd::shared_ptr throws too, is defined in
// bits/shared_ptr_base.h (shadowed); libdstd throws it
// (dstd/memory/bad_weak_ptr.cpp), and a program that catches it has
// <memory>.
namespace std {
class bad_weak_ptr;
}  // namespace std

namespace dstd::detail {
inline constexpr std::cv_status cv_no_timeout = static_cast<std::cv_status>(0);
inline constexpr std::cv_status cv_timeout = static_cast<std::cv_status>(1);
}  // namespace dstd::detail
