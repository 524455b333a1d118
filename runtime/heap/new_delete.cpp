// Every replaceable operator new and delete of the process, forwarded to
// tcmalloc like the C functions in malloc_shim.cpp (same reason, same
// routing of blocks homed on other nodes). tcmalloc's new throws
// std::bad_alloc and honours std::set_new_handler.
#include <gperftools/tcmalloc.h>

#include <cstddef>
#include <new>

#include "runtime/heap/free_routing.hpp"

#define DSTD_EXPORT [[gnu::visibility("default")]]

using dstd::rt::route_free;

// clang-format off
DSTD_EXPORT void* operator new(std::size_t n) { return tc_new(n); }
DSTD_EXPORT void* operator new[](std::size_t n) { return tc_newarray(n); }
DSTD_EXPORT void* operator new(std::size_t n, const std::nothrow_t& t) noexcept { return tc_new_nothrow(n, t); }
DSTD_EXPORT void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return tc_newarray_nothrow(n, t); }
DSTD_EXPORT void* operator new(std::size_t n, std::align_val_t a) { return tc_new_aligned(n, a); }
DSTD_EXPORT void* operator new[](std::size_t n, std::align_val_t a) { return tc_newarray_aligned(n, a); }
DSTD_EXPORT void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t& t) noexcept { return tc_new_aligned_nothrow(n, a, t); }
DSTD_EXPORT void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t& t) noexcept { return tc_newarray_aligned_nothrow(n, a, t); }

DSTD_EXPORT void operator delete(void* p) noexcept { route_free(p, [=] { tc_delete(p); }); }
DSTD_EXPORT void operator delete[](void* p) noexcept { route_free(p, [=] { tc_deletearray(p); }); }
DSTD_EXPORT void operator delete(void* p, std::size_t n) noexcept { route_free(p, [=] { tc_delete_sized(p, n); }); }
DSTD_EXPORT void operator delete[](void* p, std::size_t n) noexcept { route_free(p, [=] { tc_deletearray_sized(p, n); }); }
DSTD_EXPORT void operator delete(void* p, const std::nothrow_t& t) noexcept { route_free(p, [=, &t] { tc_delete_nothrow(p, t); }); }
DSTD_EXPORT void operator delete[](void* p, const std::nothrow_t& t) noexcept { route_free(p, [=, &t] { tc_deletearray_nothrow(p, t); }); }
DSTD_EXPORT void operator delete(void* p, std::align_val_t a) noexcept { route_free(p, [=] { tc_delete_aligned(p, a); }); }
DSTD_EXPORT void operator delete[](void* p, std::align_val_t a) noexcept { route_free(p, [=] { tc_deletearray_aligned(p, a); }); }
DSTD_EXPORT void operator delete(void* p, std::size_t n, std::align_val_t a) noexcept { route_free(p, [=] { tc_delete_sized_aligned(p, n, a); }); }
DSTD_EXPORT void operator delete[](void* p, std::size_t n, std::align_val_t a) noexcept { route_free(p, [=] { tc_deletearray_sized_aligned(p, n, a); }); }
DSTD_EXPORT void operator delete(void* p, std::align_val_t a, const std::nothrow_t& t) noexcept { route_free(p, [=, &t] { tc_delete_aligned_nothrow(p, a, t); }); }
DSTD_EXPORT void operator delete[](void* p, std::align_val_t a, const std::nothrow_t& t) noexcept { route_free(p, [=, &t] { tc_deletearray_aligned_nothrow(p, a, t); }); }
// clang-format on
