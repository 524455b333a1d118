// compat/ internal: the end of a libstdc++ header read through compat/
// (see bits/dstd_compat_begin.h). Restores the flag as it was before this
// header; the outermost header then turns the renaming off.
#pragma pop_macro("_DSTD_COMPAT_RENAMING")
#ifndef _DSTD_COMPAT_RENAMING
#include <bits/dstd_rename_off.h>
#endif
