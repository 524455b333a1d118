// Every C++17 and C++20 standard header libstdc++ 12 has, in one
// translation unit, with compat/ first on the include path (built with
// g++ and clang++): whichever header brings a replaced name, it is dstd's,
// and libstdc++'s own headers that use those names internally still
// compile. <future> is included when compat/ has it (DSTD_COMPAT_HAS_FUTURE).
// strstream (deprecated) is left out; <format> is not in libstdc++ 12.
#include <algorithm>
#include <any>
#include <array>
#include <atomic>
#include <barrier>
#include <bit>
#include <bitset>
#include <cassert>
#include <cctype>
#include <cerrno>
#include <cfenv>
#include <cfloat>
#include <charconv>
#include <chrono>
#include <cinttypes>
#include <climits>
#include <clocale>
#include <cmath>
#include <codecvt>
#include <compare>
#include <complex>
#include <concepts>
#include <condition_variable>
#include <coroutine>
#include <csetjmp>
#include <csignal>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <cuchar>
#include <cwchar>
#include <cwctype>
#include <deque>
#include <exception>
#include <execution>
#include <filesystem>
#include <forward_list>
#include <fstream>
#include <functional>
#if DSTD_COMPAT_HAS_FUTURE
#include <future>
#endif
#include <initializer_list>
#include <iomanip>
#include <ios>
#include <iosfwd>
#include <iostream>
#include <istream>
#include <iterator>
#include <latch>
#include <limits>
#include <list>
#include <locale>
#include <map>
#include <memory>
#include <memory_resource>
#include <mutex>
#include <new>
#include <numbers>
#include <numeric>
#include <optional>
#include <ostream>
#include <queue>
#include <random>
#include <ranges>
#include <ratio>
#include <regex>
#include <scoped_allocator>
#include <semaphore>
#include <set>
#include <shared_mutex>
#include <source_location>
#include <span>
#include <sstream>
#include <stack>
#include <stdexcept>
#include <stop_token>
#include <streambuf>
#include <string>
#include <string_view>
#include <syncstream>
#include <system_error>
#include <thread>
#include <tuple>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <valarray>
#include <variant>
#include <vector>
#include <version>

#include "std_names_check.hpp"

namespace compat_test {
int dstd_first_count();      // dstd_first.cpp
bool std_interfaces_work();  // interfaces.cpp
}  // namespace compat_test

int main() {
  // The std interfaces around the replaced types: hashes, ordering,
  // printing, swapping.
  std::unordered_set<std::shared_ptr<int>> owners{std::make_shared<int>(1)};
  std::set<std::weak_ptr<int>, std::owner_less<>> watchers{*owners.begin()};
  std::unordered_map<std::thread::id, int> by_thread{{std::this_thread::get_id(), 1}};
  std::ostringstream printed;
  printed << std::this_thread::get_id() << ' ' << *owners.begin();
  std::thread t1([] {}), t2;
  std::swap(t1, t2);
  t2.join();
  std::unique_ptr<int[]> array = std::make_unique<int[]>(3);
  const bool interfaces = watchers.size() == 1 && by_thread.size() == 1 && !printed.str().empty() &&
                          !t1.joinable() && array[2] == 0;

  // libstdc++'s own classes that hold replaced types keep working.
  std::regex re("a+b");
  std::pmr::synchronized_pool_resource pool;
  void* p = pool.allocate(64);
  pool.deallocate(p, 64);
  std::osyncstream(std::cout) << "";
  const std::filesystem::path path("/a/b");
  const bool libstdcxx_users = std::regex_match("aab", re) && path.filename() == "b";
  return interfaces && compat_test::std_interfaces_work() &&
                 compat_test::dstd_first_count() == 2 && libstdcxx_users
             ? 0
             : 1;
}
