// Words for how a node ended, and the exit status dstdrun derives from it.
//
// Why: "node 2 (pid 4242) was killed by signal 9 (SIGKILL)" is the line a
// user reads first when a run fails, so it is built in one place and always
// has the same shape.
#pragma once

#include <string>

namespace dstd::launch {

// "exited with status 3", "was killed by signal 9 (SIGKILL)",
// "was killed by signal 6 (SIGABRT, core dumped)".
std::string describe_end(int wait_status);

// dstdrun's exit status when a node failed this way: 128+signal for a
// signal death, the node's exit code if non-zero, else 1.
int failure_exit_status(int wait_status);

}  // namespace dstd::launch
