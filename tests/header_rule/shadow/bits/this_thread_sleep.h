// libstdc++'s <bits/this_thread_sleep.h> (this_thread::sleep_for), which
// compat/ shadows: no dstd public header may reach it
// (tests/header_rule/README.md).
#ifdef DSTD_TEST_READING_DSTD
#error "a dstd public header reaches <bits/this_thread_sleep.h>, which compat/ shadows"
#endif
#include_next <bits/this_thread_sleep.h>
