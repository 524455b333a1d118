// compat/: libstdc++'s internal header defining std::shared_ptr,
// weak_ptr, make_shared and the casts, read with them renamed (<memory>,
// <regex>, <future>, <condition_variable> reach it); the std names are
// dstd's.
#pragma once

#include <bits/dstd_compat_begin.h>
#include_next <bits/shared_ptr.h>
#include <bits/dstd_compat_end.h>
#include <bits/dstd_std_names.h>
