// not_dstd_program FILE: appends one line to FILE and exits 0. Built without
// libdstd, so dstdrun must refuse it before any copy runs; FILE tells how
// many copies did run.
#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  FILE* f = std::fopen(argv[1], "a");
  if (f == nullptr) return 1;
  std::fputs("ran\n", f);
  return std::fclose(f) == 0 ? 0 : 1;
}
