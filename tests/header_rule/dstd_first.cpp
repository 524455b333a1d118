// The header rule (README.md): every public dstd header first, read as if
// compat/'s headers were including them, then the standard ones.
#define DSTD_TEST_READING_DSTD
#include <dstd/atomic>
#include <dstd/channel>
#include <dstd/dstd.hpp>
#include <dstd/future>
#include <dstd/memory>
#include <dstd/stop_token>
#include <dstd/sync>
#include <dstd/thread>
#undef DSTD_TEST_READING_DSTD

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string_view>
#include <system_error>

#include "header_rule_test.hpp"

// dstd declares std::cv_status opaquely and names its values itself.
static_assert(dstd::detail::cv_no_timeout == std::cv_status::no_timeout);
static_assert(dstd::detail::cv_timeout == std::cv_status::timeout);

namespace header_rule {

bool dstd_first_works() {
  auto* m = new dstd::recursive_mutex;
  auto* owned = new bool(false);
  dstd::jthread t([m, owned](dstd::stop_token) {
    std::lock_guard outer(*m);
    std::unique_lock inner(*m, std::try_to_lock);
    *owned = inner.owns_lock();
  });
  t.join();
  dstd::once_flag once;
  int calls = 0;
  dstd::call_once(once, [&] { ++calls; });
  dstd::call_once(once, [&] { ++calls; });
  // dstd's and std's smart pointers side by side.
  dstd::unique_ptr<int> mine = dstd::make_unique<int>(3);
  std::unique_ptr<int> theirs = std::make_unique<int>(*mine);
  auto shared = dstd::allocate_shared<int[]>(std::allocator<int>(), 2, 5);
  dstd::atomic<dstd::shared_ptr<int[]>> cell(shared);
  std::atomic<std::shared_ptr<int>> std_cell(std::make_shared<int>(5));
  const bool shared_ok = cell.load()[1] == *std_cell.load();
  dstd::channel<std::unique_lock<dstd::recursive_mutex>> locks(1);  // a move-only std type through it
  locks.send(std::unique_lock<dstd::recursive_mutex>(*m));
  const bool got_lock = locks.recv()->owns_lock();
  // A future with std's error machinery: <system_error> is not shadowed.
  dstd::promise<dstd::unique_ptr<int>> p;
  dstd::future<dstd::unique_ptr<int>> f = p.get_future();
  dstd::thread setter([&p] { p.set_value(dstd::make_unique<int>(4)); });
  const bool future_ok = *f.get() == 4 &&
                         std::error_code(dstd::future_errc::no_state).category().name() ==
                             std::string_view("future");
  setter.join();
  const bool ok = *owned && calls == 1 && *theirs == 3 && got_lock && shared_ok && future_ok;
  delete owned;
  delete m;
  return ok;
}

}  // namespace header_rule

int main() {
  const bool ok = header_rule::std_first_works() && header_rule::dstd_first_works();
  return ok ? 0 : 1;
}
