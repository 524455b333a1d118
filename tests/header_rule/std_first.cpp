// The header rule (README.md): the standard headers compat/ shadows come
// first and bring dstd's in; std's lock helpers, memory orders, cv_status
// and smart pointers then work with the dstd types.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <stop_token>
#include <thread>

#include "header_rule_test.hpp"

namespace header_rule {

bool std_first_works() {
  auto shared = std::make_unique<dstd::atomic<int>>(0);
  dstd::mutex a, b;
  dstd::shared_mutex s;
  dstd::condition_variable cv;
  dstd::thread t([&] {
    std::scoped_lock both(a, b);
    shared->fetch_add(1, std::memory_order_acq_rel);
  });
  t.join();
  {
    std::shared_lock reader(s);
    std::unique_lock lock(a);
    if (cv.wait_for(lock, std::chrono::milliseconds(1)) != std::cv_status::timeout) return false;
  }
  std::atomic<int> plain{shared->load(std::memory_order_acquire)};  // libstdc++'s, untouched
  dstd::unique_ptr<int> mine(new int(plain.load()));  // <memory> brought <dstd/memory>
  auto later = dstd::async(dstd::launch::deferred, [&] { return *mine + 1; });  // <future>: <dstd/future>
  return *mine == 1 && later.get() == 2;
}

}  // namespace header_rule
