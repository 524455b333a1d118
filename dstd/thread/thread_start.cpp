// Starting, running, joining and detaching dstd threads (docs/DESIGN.md §5).
//
// A thread_state lives in the creating node's heap and is shared by the
// dstd::thread object and the running thread. Its join word, a home word,
// is 0 while the thread runs, `finished` once it is done, `detached` once
// the object let it go, or else the name of a joiner parked on it
// (remote_wake.hpp: its node and waiter id); whoever comes second of the
// finishing thread and the joiner (or detach) sees the other's mark, and
// frees the state. Waking goes through that name, so joiner, thread and
// state can be on three different nodes.
//
// Marking itself finished is the last thing a thread does at the state's
// home: after it, a joiner may return, main may end and the run with it,
// and the state's node may be gone. (It used to drop a reference count
// and update the placement counts at node 0 after marking: a CI run over
// ucx saw node 1's fetch-and-add fail with "Endpoint timeout" after node 0
// had left.) Only a wake (a message, which a node that is leaving drops)
// or, for a detached thread, the free of the state follows.
//
// Coherence: the creator releases before a thread starts on another node,
// which acquires before running; a thread releases when it ends, before
// marking itself finished; join acquires after seeing the mark. Output
// follows the same edges (runtime/control/forwarded_output.hpp): the
// creator's stdout and stderr are out before a thread starts on another
// node, and such a thread's before it is marked finished.
#include <cxxabi.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dstd/thread>
#include <exception>
#include <typeinfo>

#include "dstd/thread/thread_ids.hpp"
#include "dstd/thread/thread_start.hpp"
#include "runtime/coherence/coherence.hpp"
#include "runtime/common/backoff.hpp"
#include "runtime/common/chaos.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/control/forwarded_output.hpp"
#include "runtime/control/placement.hpp"
#include "runtime/heap/address_space.hpp"
#include "runtime/sched/remote_wake.hpp"
#include "runtime/sched/scheduler.hpp"
#include "runtime/sched/thread_exit.hpp"
#include "runtime/sync/home_word.hpp"
#include "runtime/transport/handler_ids.hpp"
#include "runtime/transport/typed_handler.hpp"

namespace dstd::detail {

struct thread_state {
  rt::home_word<std::uint64_t> join_word{0};  // 0, finished, detached or a parked joiner's name
  std::uint64_t id = 0;
  node_id node = 0;  // where it runs
  thread_body* body = nullptr;
};

namespace {

constexpr std::uint64_t finished = 1;
constexpr std::uint64_t detached = 2;  // a packed name is never below 2^16

[[noreturn]] void uncaught_exception_in(const thread_state* s) {
  const std::uint64_t id = s->id;
  char what[512] = "an exception not derived from std::exception";
  try {
    throw;
  } catch (const std::exception& e) {
    int status = 0;
    char* type = abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status);
    std::snprintf(what, sizeof what, "%s: %s", type != nullptr ? type : typeid(e).name(),
                  e.what());
    std::free(type);
  } catch (...) {
  }
  std::fprintf(stderr,
               "dstd: thread %llu.%llu on node %u ended with an uncaught exception (%s); "
               "terminating the program\n",
               static_cast<unsigned long long>((id >> 40) - 1),
               static_cast<unsigned long long>(id & ((std::uint64_t{1} << 40) - 1)),
               this_node(), what);
  std::fflush(stderr);
  std::terminate();
}

// The thread's last touch of `s` (see the top).
void mark_finished(thread_state* s) {
  const std::uint64_t seen = s->join_word.exchange(finished);
  if (seen == detached) {
    delete s;
  } else if (seen != 0) {
    rt::sched::wake(rt::sched::unpack(seen));
  }
}

// The fiber entry of every dstd thread.
void run_thread(void* arg) {
  auto* s = static_cast<thread_state*>(arg);
  const bool started_elsewhere = !rt::locate(s).here;  // s is on its creator's node
  if (started_elsewhere) rt::coherence::acquire();
  set_current_thread_id(s->id);
  try {
    s->body->run_and_destroy(s->body);
    rt::sched::run_thread_exit_destructors();  // before join can return
  } catch (...) {
    uncaught_exception_in(s);
  }
  // Its output comes before what the creator's node writes after joining
  // it; on the creator's node the stdio buffers and pipes are the same.
  if (started_elsewhere) rt::flush_forwarded_output();
  rt::coherence::release();
  rt::placement::thread_finished(this_node());
  mark_finished(s);
  // Tests hold this thread here (DSTD_CHAOS_STALL_AT=thread_finished) to
  // show that nothing a joiner or the end of the run depends on is left to
  // do: tests/thread/thread_end_test.cpp.
  rt::chaos::stall(rt::chaos::stall_point::thread_finished);
}

// Run a new dstd thread on this node.
constexpr rt::handler_decl<thread_state*> run_here{rt::handler_ids::start_thread};

void on_start_thread(rt::message& m) {
  thread_state* s = m.payload_as<thread_state*>();
  rt::sched::spawn(run_thread, s);
}

}  // namespace

void register_thread_start_handlers() {
  rt::register_handler(run_here, &on_start_thread);
}

thread_state* start_thread(thread_body* body, node_id where, std::uint64_t& id) {
  if (where == placed_by_load) where = rt::placement::choose();
  if (where >= node_count()) {
    char what[128];
    std::snprintf(what, sizeof what, "dstd::spawn_on: node %u does not exist (the run has %u)",
                  where, node_count());
    throw_thread_error(EINVAL, what);
  }
  auto* s = new thread_state;
  s->id = id = new_thread_id();
  s->node = where;
  s->body = body;
  rt::placement::thread_placed(where);
  if (where == this_node()) {
    rt::sched::spawn(run_thread, s);
  } else {
    rt::flush_forwarded_output();  // what this node wrote comes before the thread's output
    rt::coherence::release();
    rt::send(*rt::current_transport(), where, run_here, s);
  }
  return s;
}

// Whether the thread is seen finished while the joiner watches its join
// word for a while (backoff.hpp's spins and yields). A short thread on
// another node often ends within microseconds of the join; seen here, it
// needs no wake, which would come as a message through this node's service
// thread and then wake this thread: two hand-overs between threads, a few
// microseconds each on a busy machine. Only where the word is this node's:
// elsewhere each look would be a remote read.
bool finished_while_watched(const thread_state* s) {
  if (!rt::locate(s).here) return false;
  rt::backoff wait;
  while (s->join_word.load() != finished) {
    // A fiber lets its worker's other fibers run first: the thread may be
    // one of them (one worker, or a thread of this node).
    if (rt::sched::current() != nullptr) rt::sched::yield();
    if (!wait.step()) return false;
  }
  return true;
}

void join_thread(thread_state* s) {
  if (finished_while_watched(s)) {
    rt::coherence::acquire();
    delete s;
    return;
  }
  const std::uint64_t seen = s->join_word.compare_swap(0, rt::sched::pack(rt::sched::my_name()));
  if (seen != 0 && seen != finished) rt::fatal("two threads joined the same dstd::thread");
  if (seen == 0) {
    while (s->join_word.load() != finished) rt::sched::park();
  }
  rt::coherence::acquire();
  delete s;
}

void detach_thread(thread_state* s) noexcept {
  if (s->join_word.compare_swap(0, detached) == finished) delete s;
}

}  // namespace dstd::detail
