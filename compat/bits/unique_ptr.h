// compat/: libstdc++'s internal header defining std::unique_ptr,
// default_delete and make_unique, read with them renamed; the std names are
// dstd's (whichever header brought this one: <memory>, <future>, <thread>...).
#pragma once

#include <bits/dstd_compat_begin.h>
#include_next <bits/unique_ptr.h>
#include <bits/dstd_compat_end.h>
#include <bits/dstd_std_names.h>
