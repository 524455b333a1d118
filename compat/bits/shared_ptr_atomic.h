// compat/: libstdc++'s internal header defining atomic<shared_ptr> and the
// atomic_* free functions on shared_ptr, read with them renamed; the std
// names are dstd's.
#pragma once

#include <bits/dstd_compat_begin.h>
#include_next <bits/shared_ptr_atomic.h>
#include <bits/dstd_compat_end.h>
#include <bits/dstd_std_names.h>
