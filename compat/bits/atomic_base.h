// compat/: libstdc++'s internal header defining std::memory_order (which
// stays std's, dstd uses it) and std::atomic_flag and the fences (renamed
// here; dstd's take the std names). dstd's own headers include this one
// (dstd/bits/std_parts.hpp), so it only renames and never includes a dstd
// header; the std names come with the public header that brought it.
#pragma once

#include <bits/dstd_compat_begin.h>
#include_next <bits/atomic_base.h>
#include <bits/dstd_compat_end.h>
