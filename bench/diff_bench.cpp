// The diff encoder and decoder alone (runtime/coherence/diff.hpp), one
// process, no nodes: what a release pays per dirty page to encode it
// against its twin, and what the home pays to apply it.
//
// Why: the consumer-homed 1 MiB hand-off (producer_consumer_bench) spent
// most of its producer's release in these two loops; a page whose every
// word moved by a small amount (counters, small integers) is their worst
// common case. Rows per pattern: encode (append_diff) and apply
// (apply_diffs), ns per page, medians of 101 batches.
//
//   build/bin/diff_bench
#include <cstdint>
#include <cstring>
#include <new>
#include <random>
#include <vector>

#include "bench/harness.hpp"
#include "runtime/coherence/diff.hpp"
#include "runtime/common/layout.hpp"

namespace {

using namespace dstd::rt::coherence;
constexpr std::size_t page = dstd::rt::layout::page_bytes;

struct buffer_home final : diff_target {
  unsigned char* bytes = new (std::align_val_t{page}) unsigned char[page]();
  ~buffer_home() { ::operator delete[](bytes, std::align_val_t{page}); }
  buffer_home() = default;
  buffer_home(const buffer_home&) = delete;
  buffer_home& operator=(const buffer_home&) = delete;
  std::byte* bytes_of(std::uintptr_t) override { return reinterpret_cast<std::byte*>(bytes); }
  void page_done(std::uintptr_t) override {}
};

template <class Change>
void rows(const char* name, Change change, std::vector<dstd::bench::result>& out) {
  std::mt19937_64 rng(20261129);
  std::vector<unsigned char> twin(page), now;
  for (auto& b : twin) b = static_cast<unsigned char>(rng());
  now = twin;
  change(now.data(), rng);
  buffer_home home;
  const auto at = reinterpret_cast<std::uintptr_t>(home.bytes);
  std::vector<std::byte> diff;
  diff.reserve(max_page_diff_bytes + 64);
  out.push_back(dstd::bench::measure(std::string(name) + ": encode", [&] {
    diff.clear();
    append_diff(diff, at, now.data(), twin.data());
  }));
  out.push_back(dstd::bench::measure(std::string(name) + ": apply", [&] {
    if (!apply_diffs(diff, home)) std::abort();
  }));
}

}  // namespace

int main() {
  std::vector<dstd::bench::result> out;
  // producer_consumer_bench's step from one round to the next.
  rows("every word + 1000003", [](unsigned char* p, std::mt19937_64&) {
    for (std::size_t i = 0; i < page; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, p + i, 8);
      w += 1000003;
      std::memcpy(p + i, &w, 8);
    }
  }, out);
  rows("every word + a random 1..99999", [](unsigned char* p, std::mt19937_64& rng) {
    for (std::size_t i = 0; i < page; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, p + i, 8);
      w += 1 + rng() % 99999;
      std::memcpy(p + i, &w, 8);
    }
  }, out);
  rows("every byte", [](unsigned char* p, std::mt19937_64&) {
    for (std::size_t i = 0; i < page; ++i) p[i] = static_cast<unsigned char>(~p[i]);
  }, out);
  rows("every other byte", [](unsigned char* p, std::mt19937_64&) {
    for (std::size_t i = 0; i < page; i += 2) p[i] = static_cast<unsigned char>(~p[i]);
  }, out);
  rows("one 8-byte word", [](unsigned char* p, std::mt19937_64&) {
    for (std::size_t i = 800; i < 808; ++i) p[i] = static_cast<unsigned char>(~p[i]);
  }, out);
  dstd::bench::print_table("diff of one 4 KiB page against its twin (ns per page)", out);
}
