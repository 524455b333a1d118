// compat/: libstdc++'s internal header defining this_thread::sleep_for and
// sleep_until, read with them renamed; the std names are dstd's.
#pragma once

#include <bits/dstd_compat_begin.h>
#include_next <bits/this_thread_sleep.h>
#include <bits/dstd_compat_end.h>
#include <bits/dstd_std_names.h>
