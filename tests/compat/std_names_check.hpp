// Compile-time checks that the std names compat/ replaces denote dstd's
// types and functions (included after standard headers, with compat/ first
// on the include path).
#pragma once

#include <cstdint>
#include <type_traits>

namespace compat_test {

template <class A, class B>
inline constexpr bool same = std::is_same_v<A, B>;

static_assert(same<std::thread, dstd::thread>);
static_assert(same<std::jthread, dstd::jthread>);
static_assert(same<decltype(std::this_thread::get_id()), dstd::thread::id>);
static_assert(same<std::stop_token, dstd::stop_token>);
static_assert(same<std::stop_source, dstd::stop_source>);
static_assert(same<std::stop_callback<void (*)()>, dstd::stop_callback<void (*)()>>);
static_assert(same<std::nostopstate_t, dstd::nostopstate_t>);
static_assert(same<std::mutex, dstd::mutex>);
static_assert(same<std::recursive_mutex, dstd::recursive_mutex>);
static_assert(same<std::timed_mutex, dstd::timed_mutex>);
static_assert(same<std::recursive_timed_mutex, dstd::recursive_timed_mutex>);
static_assert(same<std::shared_mutex, dstd::shared_mutex>);
static_assert(same<std::shared_timed_mutex, dstd::shared_timed_mutex>);
static_assert(same<std::once_flag, dstd::once_flag>);
static_assert(same<std::condition_variable, dstd::condition_variable>);
static_assert(same<std::condition_variable_any, dstd::condition_variable_any>);
static_assert(same<decltype(&std::notify_all_at_thread_exit),
                   decltype(&dstd::notify_all_at_thread_exit)>);
static_assert(same<std::latch, dstd::latch>);
static_assert(same<std::barrier<>, dstd::barrier<>>);
static_assert(same<std::counting_semaphore<4>, dstd::counting_semaphore<4>>);
static_assert(same<std::binary_semaphore, dstd::binary_semaphore>);
static_assert(same<std::atomic<int>, dstd::atomic<int>>);
static_assert(same<std::atomic_ref<int>, dstd::atomic_ref<int>>);
static_assert(same<std::atomic_flag, dstd::atomic_flag>);
static_assert(same<std::atomic_int_fast64_t, dstd::atomic<std::int_fast64_t>>);
static_assert(same<std::atomic_uint_least8_t, dstd::atomic<std::uint_least8_t>>);
static_assert(same<std::atomic_intptr_t, dstd::atomic<std::intptr_t>>);
static_assert(same<std::atomic_char8_t, dstd::atomic<char8_t>>);
static_assert(same<std::atomic_signed_lock_free, dstd::atomic_signed_lock_free>);
static_assert(same<std::unique_ptr<int>, dstd::unique_ptr<int>>);
static_assert(same<std::default_delete<int>, dstd::default_delete<int>>);
static_assert(same<std::shared_ptr<int>, dstd::shared_ptr<int>>);
static_assert(same<std::weak_ptr<int>, dstd::weak_ptr<int>>);
static_assert(same<std::enable_shared_from_this<int>, dstd::enable_shared_from_this<int>>);
static_assert(same<std::owner_less<>, dstd::owner_less<>>);
static_assert(same<std::atomic<std::shared_ptr<int>>, dstd::atomic<dstd::shared_ptr<int>>>);
static_assert(same<decltype(std::make_unique<int>(1)), dstd::unique_ptr<int>>);
static_assert(same<decltype(std::make_unique_for_overwrite<int[]>(2)), dstd::unique_ptr<int[]>>);
static_assert(same<decltype(std::make_shared<int>(1)), dstd::shared_ptr<int>>);
static_assert(same<decltype(std::make_shared_for_overwrite<int>()), dstd::shared_ptr<int>>);
static_assert(same<decltype(std::allocate_shared<int>(std::allocator<int>(), 1)), dstd::shared_ptr<int>>);
static_assert(same<decltype(std::static_pointer_cast<const int>(std::shared_ptr<int>())),
                   dstd::shared_ptr<const int>>);
static_assert(same<decltype(std::atomic_load(static_cast<const std::atomic_int*>(nullptr))), int>);
static_assert(same<decltype(&std::atomic_thread_fence), decltype(&dstd::atomic_thread_fence)>);

// The std macros work with dstd's types.
inline std::atomic_flag flag_from_macro = ATOMIC_FLAG_INIT;
inline std::atomic<int> int_from_macro = ATOMIC_VAR_INIT(3);

}  // namespace compat_test
