// Internal: making and setting thread ids (thread_identity.cpp).
#pragma once

#include <cstdint>

namespace dstd::detail {

std::uint64_t new_thread_id() noexcept;
void set_current_thread_id(std::uint64_t id) noexcept;

}  // namespace dstd::detail
