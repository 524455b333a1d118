// A Boost.Context stack allocator that takes stacks from the home
// partition's stack area, so every fiber's locals have global addresses.
#pragma once

#include <boost/context/stack_context.hpp>
#include <cstddef>

#include "runtime/heap/partition.hpp"

namespace dstd::rt {

class partition_stack {
 public:
  explicit partition_stack(std::size_t usable) : usable_(usable) {}

  boost::context::stack_context allocate() {
    span_ = allocate_stack(usable_);
    boost::context::stack_context sc;
    sc.size = span_.usable();
    sc.sp = reinterpret_cast<void*>(span_.top);
    return sc;
  }
  void deallocate(boost::context::stack_context&) noexcept { release_stack(span_); }

 private:
  std::size_t usable_;
  stack_span span_;
};

}  // namespace dstd::rt
