// libstdc++'s <bits/semaphore_base.h> (std::counting_semaphore), which compat/ shadows: no dstd public
// header may reach it (tests/header_rule/README.md).
#ifdef DSTD_TEST_READING_DSTD
#error "a dstd public header reaches <bits/semaphore_base.h> (std::counting_semaphore), which compat/ shadows"
#endif
#include_next <bits/semaphore_base.h>
