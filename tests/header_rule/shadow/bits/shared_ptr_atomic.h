// libstdc++'s <bits/shared_ptr_atomic.h> (std::atomic<std::shared_ptr>), which compat/ shadows: no dstd public
// header may reach it (tests/header_rule/README.md).
#ifdef DSTD_TEST_READING_DSTD
#error "a dstd public header reaches <bits/shared_ptr_atomic.h> (std::atomic<std::shared_ptr>), which compat/ shadows"
#endif
#include_next <bits/shared_ptr_atomic.h>
