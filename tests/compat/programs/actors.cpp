// Actors: each has a mailbox (mutex + condition_variable + deque of
// std::shared_ptr<const message>) and a thread that handles its messages
// one at a time. A broadcast shares one immutable message among every
// actor; a "bank" protocol moves amounts between accounts by messages; a
// stop message ends each actor, which replies with its balance. Prints the
// balances, their total and how many owners the broadcast had at the end.
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

struct message {
  enum kind { broadcast, credit, stop } what;
  long amount = 0;
  std::string text;
};
using message_ptr = std::shared_ptr<const message>;

class actor {
 public:
  explicit actor(long balance) : balance_(balance), thread_([this] { run(); }) {}
  void post(message_ptr m) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      mailbox_.push_back(std::move(m));
    }
    ready_.notify_one();
  }
  long join() {
    thread_.join();
    return balance_;
  }
  std::size_t heard() const { return heard_; }

 private:
  void run() {
    for (;;) {
      message_ptr m;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [this] { return !mailbox_.empty(); });
        m = std::move(mailbox_.front());
        mailbox_.pop_front();
      }
      switch (m->what) {
        case message::broadcast: heard_ += m->text.size(); kept_ = m; break;
        case message::credit: balance_ += m->amount; break;
        case message::stop: kept_.reset(); return;
      }
    }
  }

  long balance_;
  std::size_t heard_ = 0;
  message_ptr kept_;  // the last broadcast, shared with every other actor
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<message_ptr> mailbox_;
  std::thread thread_;
};

}  // namespace

int main() {
  constexpr int count = 5;
  std::vector<std::unique_ptr<actor>> actors;
  for (int i = 0; i < count; ++i) actors.push_back(std::make_unique<actor>(1000 * (i + 1)));

  auto hello = std::make_shared<const message>(message{message::broadcast, 0, "hello, actors"});
  for (auto& a : actors) a->post(hello);
  for (int round = 0; round < 200; ++round) {
    const int from = round % count, to = (round * 3 + 1) % count;
    const long amount = round % 13 + 1;
    actors[static_cast<std::size_t>(from)]->post(
        std::make_shared<const message>(message{message::credit, -amount, {}}));
    actors[static_cast<std::size_t>(to)]->post(
        std::make_shared<const message>(message{message::credit, amount, {}}));
  }
  const auto stop = std::make_shared<const message>(message{message::stop, 0, {}});
  long total = 0;
  std::size_t heard = 0;
  std::printf("balances=");
  for (auto& a : actors) {
    a->post(stop);
    const long b = a->join();
    total += b;
    heard += a->heard();
    std::printf("%ld,", b);
  }
  std::printf(" total=%ld heard=%zu owners=%ld\n", total, heard, hello.use_count());
  return 0;
}
