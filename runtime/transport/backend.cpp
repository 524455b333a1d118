// The backend factory; see backend.hpp. One place maps a transport name to
// its backend, so adding ucx or verbs is one more line in each function.
#include "runtime/transport/backend.hpp"

#include <cstring>

#include "runtime/common/fatal.hpp"
#include "runtime/transport/shm/shm_transport.hpp"
#include "runtime/transport/ucx/ucx_transport.hpp"
#ifdef DSTD_HAVE_VERBS
#include "runtime/transport/verbs/verbs_transport.hpp"
#endif

namespace dstd::rt {

namespace {
bool is(const launch_info& launch, const char* name) { return std::strcmp(launch.kind, name) == 0; }

[[noreturn]] void unknown(const launch_info& launch) {
  fatal("unknown transport '%s' (known: %s)", launch.kind, known_transports);
}
}  // namespace

home_memory home_memory_for(const launch_info& launch) {
  if (is(launch, "shm")) return shm::home_memory_for(launch);
  if (is(launch, "ucx")) return ucx::home_memory_for(launch);
#ifdef DSTD_HAVE_VERBS
  if (is(launch, "verbs")) return verbs::home_memory_for(launch);
#endif
  unknown(launch);
}

std::unique_ptr<transport> make_transport(const launch_info& launch,
                                          std::span<const memory_region> regions) {
  if (is(launch, "shm")) return shm::make_transport(launch, regions);
  if (is(launch, "ucx")) return ucx::make_transport(launch, regions);
#ifdef DSTD_HAVE_VERBS
  if (is(launch, "verbs")) return verbs::make_transport(launch, regions);
#endif
  unknown(launch);
}

}  // namespace dstd::rt
