// Helpers for the sync tests: place threads and objects on given nodes.
// Node numbers wrap around, so a test written for 4 nodes also runs on 1
// and 2 (with fewer distinct nodes).
#pragma once

#include <dstd/dstd.hpp>
#include <dstd/thread>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>

#include "runtime/transport/launch_info.hpp"

namespace dstd::test {

inline node_id wrap(unsigned n) { return n % node_count(); }

// True when every remote operation costs a round trip through the peer's
// service thread: the delayed shm mode (DSTD_SHM_DELAY_US) and network
// transports (the launch's, which mpirun and srun runs choose without any
// variable). Stress tests do fewer operations there, to stay within their
// time limit on a 2-core machine.
inline bool slow_transport() {
  return std::getenv("DSTD_SHM_DELAY_US") != nullptr ||
         std::strcmp(rt::current_launch().kind, "shm") != 0;
}

// A thread on node n (mod the node count).
template <class F>
thread start_on(unsigned n, F&& f) {
  return spawn_on(wrap(n), std::forward<F>(f));
}

// A T made on node n, so its home is n.
template <class T, class... Args>
std::unique_ptr<T> make_on(unsigned n, Args&&... args) {
  T* made = nullptr;
  spawn_on(wrap(n), [&] { made = new T(std::forward<Args>(args)...); }).join();
  return std::unique_ptr<T>(made);
}

}  // namespace dstd::test
