// The runtime's message handlers: one explicit list, run at boot.
//
// Why a list instead of a static registration object beside each handler:
// a program linked with a static libdstd takes only the object files it
// references, so a handler whose file nothing else pulled in would be
// silently missing, and its messages would find no handler on the node
// that receives them. Boot calls this list, which references every
// handler's file, so every handler is there however libdstd is linked, and
// the check below names any id left without one.
//
// Why here: the list names handlers of every layer, the std mirrors' among
// them (start_thread), and only this top layer may include them all. Boot
// (runtime/control) reaches it through its declaration in
// runtime/transport/handler_ids.hpp.
#include "dstd/memory/tbox_runtime.hpp"
#include "dstd/thread/thread_start.hpp"
#include "runtime/coherence/coherence.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/control/boot.hpp"
#include "runtime/control/run_exit.hpp"
#include "runtime/control/shared_handlers.hpp"
#include "runtime/heap/remote_free.hpp"
#include "runtime/sched/remote_wake.hpp"
#include "runtime/sync/home_futex.hpp"
#include "runtime/sync/home_mutex.hpp"
#include "runtime/transport/handler_ids.hpp"

namespace dstd::rt {

void register_runtime_handlers() {
  register_boot_handlers();
  register_exit_handlers();
  register_shared_handler_handlers();
  register_remote_free_handlers();
  coherence::register_handlers();
  sched::register_remote_wake_handlers();
  home_futex::register_handlers();
  home_mutex::register_handlers();
  detail::register_thread_start_handlers();
  detail::register_tbox_handlers();
  for (handler_id id = 1; id <= handler_ids::last_runtime_handler; ++id) {
    if (find_handler(id) == nullptr) {
      fatal("no handler registered for runtime message %s (id %u)", handler_name(id), id);
    }
  }
}

}  // namespace dstd::rt
