// pthread_once: a once-control the cluster serves (route.hpp) follows
// dstd::call_once's protocol (detail::once_gate) on the 4-byte control:
// 0 not run, 1 running, 2 done. glibc's done value is also 2, so a control
// glibc completed before boot reads as done here.
#include <pthread.h>

#include <dstd/atomic>
#include <dstd/bits/call_once.hpp>

#include "dstd/interpose/next_definition.hpp"
#include "dstd/interpose/route.hpp"

namespace dstd::interpose {
namespace {
constinit next_definition<int(pthread_once_t*, void (*)())> glibc_once{"pthread_once"};
}  // namespace
}  // namespace dstd::interpose

extern "C" [[gnu::visibility("default")]] int pthread_once(pthread_once_t* once, void (*init)()) {
  if (!dstd::interpose::on_cluster(once, __builtin_return_address(0))) {
    // Held while its init runs (an init that sleeps must keep its worker:
    // runtime/sched/held_glibc_locks.hpp), released however it ends.
    struct held {
      const void* caller;
      explicit held(const void* c) : caller(c) { dstd::interpose::count_glibc_acquire(0, c); }
      ~held() { dstd::interpose::count_glibc_release(0, caller); }
    } while_running(__builtin_return_address(0));
    return dstd::interpose::glibc_once.get()(once, init);
  }
  static_assert(sizeof(pthread_once_t) == sizeof(dstd::atomic<int>));
  dstd::detail::once_gate<int> gate(*reinterpret_cast<dstd::atomic<int>*>(once), 0, 1, 2);
  if (!gate.enter()) return 0;
  try {
    init();
  } catch (...) {  // as glibc: an init that does not finish leaves it not run
    gate.abandon();
    throw;
  }
  gate.finish();
  return 0;
}
