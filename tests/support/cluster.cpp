// See cluster.hpp.
#include "cluster.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dstd/dstd.hpp>
#include <thread>

#include "runtime/coherence/coherence.hpp"

namespace dstd::test {

namespace {

constexpr rt::handler_id h_start_worker = rt::first_user_handler + 201;

rt::transport& net() { return *rt::current_transport(); }

// What a worker needs, sent to each node: fn, the shared words, the arg.
struct start_request {
  worker_fn fn;
  rt::gaddr barrier_word;
  rt::gaddr done_word;
};

void run_worker(start_request req, std::string arg) {
  worker_context ctx{dstd::this_node(), dstd::node_count(), std::move(arg), req.barrier_word, 0};
  rt::coherence::acquire();  // see what the starter wrote
  req.fn(ctx);
  rt::coherence::release();  // publish what the worker wrote
  net().fetch_add(req.done_word, 1);
}

void on_start_worker(rt::message& m) {
  start_request req{};
  std::memcpy(&req, m.payload().data(), sizeof req);
  std::string arg(reinterpret_cast<const char*>(m.payload().data()) + sizeof req,
                  m.payload().size() - sizeof req);
  std::thread(run_worker, req, std::move(arg)).detach();
}
const rt::handler_registration registration{h_start_worker, &on_start_worker};

rt::gaddr new_word() {
  auto* w = static_cast<std::uint64_t*>(std::aligned_alloc(64, 64));
  *w = 0;
  return reinterpret_cast<rt::gaddr>(w);
}

}  // namespace

void worker_context::barrier() const {
  rt::coherence::release();
  net().fetch_add(barrier_word, 1);
  ++barrier_round;
  const std::uint64_t target = barrier_round * nodes;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (net().fetch_add(barrier_word, 0) < target) {
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "node %u: test barrier round %llu timed out\n", node,
                   static_cast<unsigned long long>(barrier_round));
      std::abort();
    }
    std::this_thread::yield();
  }
  rt::coherence::acquire();
}

void run_on_every_node(worker_fn fn, const std::string& arg) {
  const start_request req{fn, new_word(), new_word()};
  rt::coherence::release();  // workers see everything written before
  std::string payload(reinterpret_cast<const char*>(&req), sizeof req);
  payload += arg;
  for (rt::node_id n = 1; n < dstd::node_count(); ++n) {
    net().post_send(n, h_start_worker, payload.data(), payload.size());
  }
  std::thread local(run_worker, req, arg);
  local.join();
  const std::uint64_t all = dstd::node_count();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (net().fetch_add(req.done_word, 0) < all) {
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "workers did not finish within 120 s";
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  rt::coherence::acquire();  // see what the workers wrote
}

}  // namespace dstd::test
