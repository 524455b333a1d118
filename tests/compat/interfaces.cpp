// The std interfaces of the replaced types under compat/, used as std
// specifies them; part of compat_all_headers.
#include <atomic>
#include <barrier>
#include <chrono>
#include <condition_variable>
#include <latch>
#include <memory>
#include <mutex>
#include <semaphore>
#include <shared_mutex>
#include <stop_token>
#include <thread>

namespace compat_test {

namespace {
struct node : std::enable_shared_from_this<node> {
  int v = 1;
};
}  // namespace

// Uses each replaced type through its std name the way std specifies it
// (CTAD, timed waits on every clock, stop tokens, arrays, atomic smart
// pointers, the free functions) and returns whether the results are std's.
bool std_interfaces_work() {
  auto n = std::make_shared<node>();
  std::weak_ptr<node> w = n->weak_from_this();
  std::shared_ptr<int[]> arr = std::make_shared<int[]>(4);
  std::shared_ptr<int[]> arr2(new int[3]);
  std::atomic<std::weak_ptr<node>> aw(w);
  std::atomic<std::shared_ptr<node>> as(n);
  std::atomic<float> f{1.5f};
  f.fetch_add(1.0f);
  double d = 0;
  std::atomic_ref<double> rd(d);
  rd.store(2.0);
  std::counting_semaphore<8> sem(1);
  static_assert(std::counting_semaphore<8>::max() >= 8);
  bool got = sem.try_acquire_for(std::chrono::milliseconds(1));
  sem.release();
  std::latch l(1);
  l.count_down();
  l.wait();
  static_assert(std::latch::max() > 0);
  std::barrier b(1);
  auto tok = b.arrive();
  b.wait(std::move(tok));
  std::shared_timed_mutex stm;
  bool s = stm.try_lock_shared_for(std::chrono::milliseconds(1));
  if (s) stm.unlock_shared();
  std::timed_mutex tm;
  if (tm.try_lock_until(std::chrono::steady_clock::now() + std::chrono::milliseconds(1)))
    tm.unlock();
  std::recursive_timed_mutex rtm;
  if (rtm.try_lock_for(std::chrono::milliseconds(1))) rtm.unlock();
  std::condition_variable_any cva;
  std::mutex m;
  std::stop_source ss;
  ss.request_stop();
  {
    std::unique_lock lk(m);
    cva.wait(lk, ss.get_token(), [] { return false; });
  }
  std::jthread jt([](std::stop_token st) {
    while (!st.stop_requested()) std::this_thread::yield();
  });
  std::stop_source src = jt.get_stop_source();
  src.request_stop();
  std::stop_callback cb(jt.get_stop_token(), [] {});
  std::this_thread::sleep_until(std::chrono::system_clock::now() + std::chrono::milliseconds(1));
  std::condition_variable cv;
  {
    std::unique_lock lk(m);
    cv.wait_for(lk, std::chrono::milliseconds(1));
    cv.wait_until(lk, std::chrono::system_clock::now() + std::chrono::milliseconds(1));
  }
  std::once_flag once;
  std::call_once(
      once, [](int) {}, 1);
  std::shared_lock<std::shared_timed_mutex> sl(stm, std::defer_lock);
  std::scoped_lock both(tm, rtm);
  std::unique_ptr<node> up = std::make_unique<node>();
  std::shared_ptr<node> fromu(std::move(up));
  std::shared_ptr sp_ctad(fromu);
  std::weak_ptr wp_ctad(sp_ctad);
  std::atomic at_ctad{5};
  std::atomic_int_fast32_t af{1};
  std::atomic_uintptr_t au{2};
  std::atomic_signal_fence(std::memory_order_seq_cst);
  std::atomic_flag fl;
  fl.test_and_set();
  fl.notify_all();
  std::atomic_flag_clear_explicit(&fl, std::memory_order_release);
  std::atomic<int> ai{0};
  ai.wait(1);
  ai.notify_one();
  std::atomic_wait(&ai, 1);
  return got && aw.load().lock() == n && as.load() == n && rd.load() == 2.0 && arr[3] == 0 &&
         af + au == 3 && at_ctad == 5 && wp_ctad.lock() == fromu && f.load() == 2.5f && s && !fl.test();
}

}  // namespace compat_test
