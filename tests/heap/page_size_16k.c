/* Preloaded into a dstd program (LD_PRELOAD) to make it believe the
 * system's pages are 16 KiB: dstd, built for layout::page_bytes, must stop
 * with a clear error instead of running with the wrong pages
 * (tests/CMakeLists.txt, wrong_page_size_is_fatal). */
#include <unistd.h>

long __sysconf(int name);

long sysconf(int name) { return name == _SC_PAGESIZE ? 16384 : __sysconf(name); }
