// The boundary test's side built without compat/ (sides.inc), and main:
// both sides work in one program, and a std::regex made on either side is
// used on the other.
#include <cstdio>

#define SIDE(name) plain_side_##name
#include "sides.inc"

#ifdef _DSTD_COMPAT_STD_NAMES
#error "this side must be built without compat/"
#endif

int main() {
  using namespace boundary;
  int failures = 0;
  auto check = [&](bool ok, const char* what) {
    if (!ok) {
      std::printf("FAILED: %s\n", what);
      ++failures;
    }
  };
  check(compat_side_counter(4, 1000) == 4000, "compat side: mutex + atomic counter");
  check(plain_side_counter(4, 1000) == 4000, "plain side: mutex + atomic counter");
  check(compat_side_shared_owners() == 27, "compat side: shared_ptr/weak_ptr/unique_ptr");
  check(plain_side_shared_owners() == 27, "plain side: shared_ptr/weak_ptr/unique_ptr");
  check(plain_side_matches(compat_side_regex("a+b"), "aaab"), "regex from compat side, plain match");
  check(compat_side_matches(plain_side_regex("x[0-9]+"), "x42"), "regex from plain side, compat match");
  check(!compat_side_matches(compat_side_regex("a+b"), "b"), "regex mismatch");
  if (failures == 0) std::printf("boundary: both sides work in one program\n");
  return failures == 0 ? 0 : 1;
}
