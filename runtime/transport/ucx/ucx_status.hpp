// One way to fail on a UCX error: a fatal message naming what was being done.
#pragma once

#include <ucs/type/status.h>

#include "runtime/common/fatal.hpp"

namespace dstd::rt::ucx {

inline void check(ucs_status_t status, const char* what) {
  if (status != UCS_OK) fatal("UCX: %s failed: %s", what, ucs_status_string(status));
}

// For the pointer-or-status results of UCX's non-blocking calls.
inline void check_ptr(ucs_status_ptr_t p, const char* what) {
  if (UCS_PTR_IS_ERR(p)) check(UCS_PTR_STATUS(p), what);
}

}  // namespace dstd::rt::ucx
