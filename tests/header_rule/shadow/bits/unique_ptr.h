// libstdc++'s <bits/unique_ptr.h> (std::unique_ptr), which compat/ shadows: no dstd public
// header may reach it (tests/header_rule/README.md).
#ifdef DSTD_TEST_READING_DSTD
#error "a dstd public header reaches <bits/unique_ptr.h> (std::unique_ptr), which compat/ shadows"
#endif
#include_next <bits/unique_ptr.h>
