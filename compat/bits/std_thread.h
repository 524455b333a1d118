// compat/: libstdc++'s internal header defining std::thread and
// this_thread::get_id/yield, read with those renamed (<thread>, <future>,
// <stop_token>, <barrier> reach it); the std names are dstd's.
#pragma once

#include <bits/dstd_compat_begin.h>
#include_next <bits/std_thread.h>
#include <bits/dstd_compat_end.h>
#include <bits/dstd_std_names.h>
