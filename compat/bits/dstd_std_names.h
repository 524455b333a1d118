// compat/ internal: the std names of the types and functions compat/
// replaces, as using-declarations of dstd's (so `std::mutex` is the class
// dstd::mutex itself: its mangled names are dstd's, and CTAD, template
// template arguments and ADL work as with std's). Included after each
// shadowed header once the renaming is off (bits/dstd_compat_end.h): while a
// libstdc++ header is being read its own names are renamed, so both sets
// coexist. Names libstdc++ has that dstd does not yet offer are listed in
// compat/README.md. No #pragma once: a read while the renaming is on does
// nothing, and the first read afterwards does the work.
#if !defined(_DSTD_COMPAT_RENAMING) && !defined(_DSTD_COMPAT_STD_NAMES)
#define _DSTD_COMPAT_STD_NAMES 1

#include <dstd/atomic>
#include <dstd/memory>
#include <dstd/stop_token>
#include <dstd/sync>
#include <dstd/thread>

// std::atomic_flag a = ATOMIC_FLAG_INIT; libstdc++'s spelling, { 0 }, needs
// its flag's constructor from bool, which std does not have.
#undef ATOMIC_FLAG_INIT
#define ATOMIC_FLAG_INIT {}

namespace std {

// <thread>, <stop_token>
using dstd::jthread;
using dstd::nostopstate;
using dstd::nostopstate_t;
using dstd::stop_callback;
using dstd::stop_source;
using dstd::stop_token;
using dstd::thread;
namespace this_thread {
using dstd::this_thread::get_id;
using dstd::this_thread::sleep_for;
using dstd::this_thread::sleep_until;
using dstd::this_thread::yield;
}  // namespace this_thread

// <mutex>, <shared_mutex>, <condition_variable>, <latch>, <barrier>, <semaphore>
using dstd::barrier;
using dstd::binary_semaphore;
using dstd::call_once;
using dstd::condition_variable;
using dstd::condition_variable_any;
using dstd::counting_semaphore;
using dstd::latch;
using dstd::mutex;
using dstd::notify_all_at_thread_exit;
using dstd::once_flag;
using dstd::recursive_mutex;
using dstd::recursive_timed_mutex;
using dstd::shared_mutex;
using dstd::shared_timed_mutex;
using dstd::timed_mutex;

// <atomic>
using dstd::atomic;
using dstd::atomic_flag;
using dstd::atomic_ref;

using dstd::atomic_bool;
using dstd::atomic_char;
using dstd::atomic_char16_t;
using dstd::atomic_char32_t;
using dstd::atomic_char8_t;
using dstd::atomic_int;
using dstd::atomic_int16_t;
using dstd::atomic_int32_t;
using dstd::atomic_int64_t;
using dstd::atomic_int8_t;
using dstd::atomic_int_fast16_t;
using dstd::atomic_int_fast32_t;
using dstd::atomic_int_fast64_t;
using dstd::atomic_int_fast8_t;
using dstd::atomic_int_least16_t;
using dstd::atomic_int_least32_t;
using dstd::atomic_int_least64_t;
using dstd::atomic_int_least8_t;
using dstd::atomic_intmax_t;
using dstd::atomic_intptr_t;
using dstd::atomic_llong;
using dstd::atomic_long;
using dstd::atomic_ptrdiff_t;
using dstd::atomic_schar;
using dstd::atomic_short;
using dstd::atomic_signed_lock_free;
using dstd::atomic_size_t;
using dstd::atomic_uchar;
using dstd::atomic_uint;
using dstd::atomic_uint16_t;
using dstd::atomic_uint32_t;
using dstd::atomic_uint64_t;
using dstd::atomic_uint8_t;
using dstd::atomic_uint_fast16_t;
using dstd::atomic_uint_fast32_t;
using dstd::atomic_uint_fast64_t;
using dstd::atomic_uint_fast8_t;
using dstd::atomic_uint_least16_t;
using dstd::atomic_uint_least32_t;
using dstd::atomic_uint_least64_t;
using dstd::atomic_uint_least8_t;
using dstd::atomic_uintmax_t;
using dstd::atomic_uintptr_t;
using dstd::atomic_ullong;
using dstd::atomic_ulong;
using dstd::atomic_unsigned_lock_free;
using dstd::atomic_ushort;
using dstd::atomic_wchar_t;

using dstd::atomic_compare_exchange_strong;
using dstd::atomic_compare_exchange_strong_explicit;
using dstd::atomic_compare_exchange_weak;
using dstd::atomic_compare_exchange_weak_explicit;
using dstd::atomic_exchange;
using dstd::atomic_exchange_explicit;
using dstd::atomic_fetch_add;
using dstd::atomic_fetch_add_explicit;
using dstd::atomic_fetch_and;
using dstd::atomic_fetch_and_explicit;
using dstd::atomic_fetch_or;
using dstd::atomic_fetch_or_explicit;
using dstd::atomic_fetch_sub;
using dstd::atomic_fetch_sub_explicit;
using dstd::atomic_fetch_xor;
using dstd::atomic_fetch_xor_explicit;
using dstd::atomic_flag_clear;
using dstd::atomic_flag_clear_explicit;
using dstd::atomic_flag_notify_all;
using dstd::atomic_flag_notify_one;
using dstd::atomic_flag_test;
using dstd::atomic_flag_test_and_set;
using dstd::atomic_flag_test_and_set_explicit;
using dstd::atomic_flag_test_explicit;
using dstd::atomic_flag_wait;
using dstd::atomic_flag_wait_explicit;
using dstd::atomic_init;
using dstd::atomic_is_lock_free;
using dstd::atomic_load;
using dstd::atomic_load_explicit;
using dstd::atomic_notify_all;
using dstd::atomic_notify_one;
using dstd::atomic_signal_fence;
using dstd::atomic_store;
using dstd::atomic_store_explicit;
using dstd::atomic_thread_fence;
using dstd::atomic_wait;
using dstd::atomic_wait_explicit;

// <memory>
using dstd::allocate_shared;
using dstd::allocate_shared_for_overwrite;
using dstd::const_pointer_cast;
using dstd::default_delete;
using dstd::dynamic_pointer_cast;
using dstd::enable_shared_from_this;
using dstd::get_deleter;
using dstd::make_shared;
using dstd::make_shared_for_overwrite;
using dstd::make_unique;
using dstd::make_unique_for_overwrite;
using dstd::owner_less;
using dstd::reinterpret_pointer_cast;
using dstd::shared_ptr;
using dstd::static_pointer_cast;
using dstd::unique_ptr;
using dstd::weak_ptr;

}  // namespace std

#endif
