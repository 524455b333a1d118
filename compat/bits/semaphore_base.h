// compat/: libstdc++'s internal header behind <semaphore>, read with the
// replaced names renamed; the std names are dstd's.
#pragma once

#include <bits/dstd_compat_begin.h>
#include_next <bits/semaphore_base.h>
#include <bits/dstd_compat_end.h>
#include <bits/dstd_std_names.h>
