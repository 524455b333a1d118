// Throws std::bad_weak_ptr for <dstd/memory>, whose header cannot define it
// (it lives in a header compat/ shadows: docs/DESIGN.md §2.1). Throwing
// std's own type lets a program catch what it would catch with std's
// shared_ptr.
#include <dstd/memory>
#include <memory>

namespace dstd::detail {

void throw_bad_weak_ptr() { throw std::bad_weak_ptr(); }

}  // namespace dstd::detail
