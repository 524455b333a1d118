// Transport latency: one-sided reads, atomics and message round trips from
// node 0 to node 1 (and to itself, for reference).
//
//   build/bin/dstdrun -n 2 build/bin/transport_bench
#include <cstdio>
#include <cstring>
#include <dstd/dstd.hpp>
#include <vector>

#include "bench/harness.hpp"
#include "runtime/heap/partition.hpp"
#include "runtime/transport/transport.hpp"
#include "runtime/transport/typed_handler.hpp"

namespace {

using dstd::rt::gaddr;
using dstd::rt::message;
using dstd::rt::node_id;

constexpr dstd::rt::handler_id h_alloc = dstd::rt::first_user_handler;
constexpr dstd::rt::handler_id h_echo = dstd::rt::first_user_handler + 1;

void on_alloc(message& m) {
  auto a = reinterpret_cast<gaddr>(dstd::rt::partition_allocate(1 << 20, 4096));
  m.reply(&a, sizeof a);
}
void on_echo(message& m) { m.reply(m.payload().data(), m.payload().size()); }
const dstd::rt::handler_registration registrations[] = {{h_alloc, &on_alloc},
                                                        {h_echo, &on_echo}};

std::vector<dstd::bench::result> measure_against(node_id target) {
  dstd::rt::transport& t = *dstd::rt::current_transport();
  gaddr area = 0;
  auto reply = t.call(target, h_alloc, nullptr, 0);
  std::memcpy(&area, reply.data(), sizeof area);
  std::vector<std::byte> buffer(4096);
  const std::string to = " (node 0 -> " + std::to_string(target) + ")";
  using dstd::bench::measure;
  return {
      measure("read 8 B" + to, [&] { t.read(buffer.data(), area, 8); }),
      measure("read 4 KiB" + to, [&] { t.read(buffer.data(), area, 4096); }),
      measure("write 4 KiB" + to, [&] { t.write(area, buffer.data(), 4096); }),
      measure("fetch-and-add" + to, [&] { t.fetch_add(area, 1); }),
      measure("compare-and-swap" + to, [&] { t.compare_swap(area, 0, 0); }),
      measure("message round trip, 0 B" + to, [&] { t.call(target, h_echo, nullptr, 0); }, 200),
      measure("message round trip, 4 KiB" + to,
              [&] { t.call(target, h_echo, buffer.data(), buffer.size()); }, 200),
  };
}

}  // namespace

int main() {
  if (dstd::node_count() < 2) {
    std::fprintf(stderr, "run with at least two nodes: dstdrun -n 2 %s\n", "transport_bench");
    return 2;
  }
  std::printf("transport: %s, %u nodes\n\n", dstd::rt::current_transport()->name(),
              dstd::node_count());
  dstd::bench::print_table("## remote (node 1)", measure_against(1));
  std::printf("\n");
  dstd::bench::print_table("## local (node 0 itself)", measure_against(0));
  return 0;
}
