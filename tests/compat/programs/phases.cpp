// The C++20 synchronization library, as a stencil program uses it:
// std::jthreads start together on a std::latch, relax a 1-D grid in phases
// separated by a std::barrier whose completion step swaps the buffers, read
// a std::call_once-built table, count into plain memory through
// std::atomic_ref, enter a section at most two at a time through a
// std::counting_semaphore, and log under a std::recursive_mutex. A
// publisher jthread swaps a std::atomic<std::shared_ptr<const settings>>
// until its std::stop_token says stop, and a std::stop_callback records the
// request. Prints the grid's checksum and what the other parts counted.
#include <atomic>
#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <latch>
#include <memory>
#include <mutex>
#include <semaphore>
#include <stop_token>
#include <thread>
#include <vector>

namespace {

constexpr int workers = 4, cells = 4096, phases = 40;

struct settings {
  int version;
};

std::once_flag table_once;
std::vector<long> weights;
void build_table() {
  for (int i = 0; i < 16; ++i) weights.push_back(i % 3 + 1);
}

}  // namespace

int main() {
  std::vector<long> grid(cells), next(cells);
  for (int i = 0; i < cells; ++i) grid[static_cast<std::size_t>(i)] = (i * 37) % 101;
  long hits[workers] = {};
  int swaps = 0;
  std::barrier step(workers, [&]() noexcept {
    grid.swap(next);
    ++swaps;
  });
  std::latch start(workers + 1);
  std::counting_semaphore<2> gate(2);
  std::atomic<int> inside{0}, most_inside{0};
  std::recursive_mutex log_mutex;
  long log_lines = 0;
  auto log = [&](int n) {
    std::lock_guard<std::recursive_mutex> outer(log_mutex);
    std::lock_guard<std::recursive_mutex> inner(log_mutex);  // re-entered
    log_lines += n;
  };

  std::atomic<std::shared_ptr<const settings>> current(std::make_shared<const settings>(settings{0}));
  std::atomic<bool> stop_seen{false};
  std::atomic<int> published{0};
  std::jthread publisher([&](std::stop_token st) {
    std::stop_callback on_stop(st, [&] { stop_seen = true; });
    while (!st.stop_requested()) {
      if (published.load() < 100) {
        current.store(std::make_shared<const settings>(settings{published.load() + 1}));
        ++published;
      }
      std::this_thread::yield();
    }
  });

  std::vector<std::jthread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      std::call_once(table_once, build_table);
      start.arrive_and_wait();
      const int begin = cells / workers * w, end = begin + cells / workers;
      for (int p = 0; p < phases; ++p) {
        for (int i = begin; i < end; ++i) {
          const long left = grid[static_cast<std::size_t>((i + cells - 1) % cells)];
          const long right = grid[static_cast<std::size_t>((i + 1) % cells)];
          next[static_cast<std::size_t>(i)] =
              (left + right + 2 * grid[static_cast<std::size_t>(i)]) / 4 +
              weights[static_cast<std::size_t>(i % 16)];
          std::atomic_ref<long>(hits[w]).fetch_add(1, std::memory_order_relaxed);
        }
        if (p % 10 == 0) {
          gate.acquire();
          const int now = inside.fetch_add(1) + 1;
          for (int seen = most_inside.load(); seen < now && !most_inside.compare_exchange_weak(seen, now);) {
          }
          if (current.load()->version < 0) std::abort();
          inside.fetch_sub(1);
          gate.release();
          log(1);
        }
        step.arrive_and_wait();
      }
    });
  }
  start.count_down();
  threads.clear();  // joins the workers
  while (published < 100) std::this_thread::yield();
  publisher.request_stop();
  publisher.join();

  long checksum = 0, total_hits = 0;
  for (int i = 0; i < cells; ++i) checksum += grid[static_cast<std::size_t>(i)] * (i % 7 + 1);
  for (long h : hits) total_hits += h;
  std::printf("checksum=%ld swaps=%d hits=%ld log=%ld at_most_two=%d published=%d last=%d stop=%d\n",
              checksum, swaps, total_hits, log_lines, most_inside.load() <= 2 ? 1 : 0, published.load(),
              current.load()->version, stop_seen.load() ? 1 : 0);
  return 0;
}
