// dstdrun's side of the wire-up exchange (format: runtime/transport/wireup/
// wireup_wire.hpp): a TCP server for one round in which every node sends its
// blob and receives the table of all of them.
//
// Why a thread of its own: the round is blocking, short and independent of
// supervision; the supervisor's poll loop stays as it is, and a run whose
// nodes never all connect still ends through the supervisor's join timeout.
#pragma once

#include <string>
#include <thread>
#include <vector>

namespace dstd::launch {

class wireup_server {
 public:
  wireup_server() = default;
  ~wireup_server();
  wireup_server(const wireup_server&) = delete;
  wireup_server& operator=(const wireup_server&) = delete;

  // Listens on `address` (numeric IPv4; port chosen by the kernel), which
  // every node must reach. `address()` is what nodes connect to:
  // `address`:port. False with a message printed when it cannot.
  bool listen(const std::string& address);
  const std::string& address() const { return address_; }

  // Serves one round for `nodes` nodes, on a thread of its own.
  void start(unsigned nodes);

 private:
  void serve(unsigned nodes);
  bool accept_one(std::vector<int>& by_node, std::vector<std::string>& blobs, unsigned nodes);
  void refuse(int fd, const std::string& why);

  int listen_fd_ = -1;
  int stop_fd_ = -1;  // eventfd: the destructor ends a round still waiting
  std::string address_;
  std::thread thread_;
};

}  // namespace dstd::launch
