// User message handlers (tests' and tools' static handler_registration
// objects) registered on node 0 are registered on every node.
//
// Why: such registrations are static constructors of the executable, which
// run once, on node 0 (program_constructors.hpp); a handler must exist on
// every node that may receive its message. The executable is the same at
// the same addresses on every node, so node 0 sends each registration —
// id, function address, declared sizes — to every other node, whose handler
// registers it, and waits for their answers: by the time the registering
// constructor returns, every node has the handler.
#pragma once

namespace dstd::rt {

// Registers the share_handler handler (register_runtime_handlers).
void register_shared_handler_handlers();

// Node 0 of a run of several nodes, at boot: share every user handler
// registered from now on.
void share_user_registrations();

}  // namespace dstd::rt
