// compat/: libstdc++'s internal header with the base of std::shared_ptr
// (also std::bad_weak_ptr, which stays libstdc++'s), read with the replaced
// names renamed; the std names are dstd's.
#pragma once

#include <bits/dstd_compat_begin.h>
#include_next <bits/shared_ptr_base.h>
#include <bits/dstd_compat_end.h>
#include <bits/dstd_std_names.h>
