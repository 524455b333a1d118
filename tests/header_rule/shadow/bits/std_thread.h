// libstdc++'s <bits/std_thread.h> (std::thread), which compat/ shadows: no dstd public
// header may reach it (tests/header_rule/README.md).
#ifdef DSTD_TEST_READING_DSTD
#error "a dstd public header reaches <bits/std_thread.h> (std::thread), which compat/ shadows"
#endif
#include_next <bits/std_thread.h>
