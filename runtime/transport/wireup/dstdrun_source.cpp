// The exchange through dstdrun's wire-up server (sources.hpp). The dstdrun
// side is runtime/launch/wireup_server.cpp; the format is wireup_wire.hpp.
#include "runtime/transport/wireup/sources.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>

#include "runtime/common/env.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/launch_contract.hpp"
#include "runtime/common/tcp_connect.hpp"
#include "runtime/transport/wireup/wireup_wire.hpp"

namespace dstd::rt::wireup {

namespace {

using clock = std::chrono::steady_clock;
using dstd::wireup::hello;
using dstd::wireup::magic;
using dstd::wireup::max_blob_bytes;
using dstd::wireup::table;
using dstd::wireup::version;

// One connection to dstdrun's server; every failure is fatal and names it.
class launcher_link {
 public:
  launcher_link(const char* address, unsigned timeout_ms)
      : address_(address), deadline_(clock::now() + std::chrono::milliseconds(timeout_ms)) {
    connect_to(address);
  }
  ~launcher_link() { close(fd_); }
  launcher_link(const launcher_link&) = delete;
  launcher_link& operator=(const launcher_link&) = delete;

  void send_all(const void* data, std::size_t len) {
    const auto* p = static_cast<const char*>(data);
    while (len > 0) {
      wait_for(POLLOUT);
      const ssize_t n = send(fd_, p, len, MSG_NOSIGNAL);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) fail("sending to it", errno);
      p += n;
      len -= static_cast<std::size_t>(n);
    }
  }

  void receive_all(void* data, std::size_t len) {
    auto* p = static_cast<char*>(data);
    while (len > 0) {
      wait_for(POLLIN);
      const ssize_t n = recv(fd_, p, len, 0);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n == 0) fail("it closed the connection", 0);
      if (n < 0) fail("receiving from it", errno);
      p += n;
      len -= static_cast<std::size_t>(n);
    }
  }

  std::uint32_t receive_u32() {
    std::uint32_t v;
    receive_all(&v, sizeof v);
    return v;
  }

  [[noreturn]] void fail(const char* what, int error) const {
    fatal("wire-up with the launcher at %s failed: %s%s%s", address_.c_str(), what,
          error ? ": " : "", error ? std::strerror(error) : "");
  }

 private:
  void connect_to(const char* address) {
    std::string error;
    fd_ = connect_tcp(address, error);
    if (fd_ < 0) fatal("wire-up with the launcher (%s): %s", launch::env_wireup, error.c_str());
  }

  void wait_for(short events) {
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - clock::now());
      if (left.count() <= 0) fail("no answer in time (did every node start?)", 0);
      pollfd p{fd_, events, 0};
      const int rc = poll(&p, 1, static_cast<int>(left.count()));
      if (rc > 0) return;
      if (rc < 0 && errno != EINTR) fail("waiting for it", errno);
    }
  }

  std::string address_;
  clock::time_point deadline_;
  int fd_ = -1;
};

}  // namespace

std::vector<std::vector<std::byte>> exchange_with_dstdrun(const launch_info& launch,
                                                          std::span<const std::byte> mine,
                                                          unsigned timeout_ms) {
  const char* address = env::text(launch::env_wireup);
  if (address == nullptr) {
    fatal("the %s transport needs the launcher's wire-up address (%s); start the program with "
          "dstdrun",
          launch.kind, launch::env_wireup);
  }
  launcher_link link(address, timeout_ms);
  const hello h{magic, version, launch.self, launch.nodes,
                static_cast<std::uint32_t>(mine.size())};
  link.send_all(&h, sizeof h);
  link.send_all(mine.data(), mine.size());

  table t;
  link.receive_all(&t, sizeof t);
  if (t.magic != magic) link.fail("its answer is not a wire-up table", 0);
  if (t.nodes == 0) {
    const std::uint32_t len = link.receive_u32();
    if (len > max_blob_bytes) link.fail("it refused this node", 0);
    std::string why(len, '\0');
    link.receive_all(why.data(), len);
    fatal("wire-up: the launcher at %s refused this node: %s", address, why.c_str());
  }
  if (t.nodes != launch.nodes) link.fail("its table has another number of nodes", 0);
  std::vector<std::vector<std::byte>> blobs(t.nodes);
  for (auto& blob : blobs) {
    const std::uint32_t len = link.receive_u32();
    if (len > max_blob_bytes) link.fail("a record in its table is too large", 0);
    blob.resize(len);
    link.receive_all(blob.data(), len);
  }
  return blobs;
}

}  // namespace dstd::rt::wireup
