// A Boost.Context stack allocator that takes stacks from the home
// partition's stack area, so every fiber's locals have global addresses.
#pragma once

#include <boost/context/stack_context.hpp>
#include <cstddef>

#include "runtime/heap/partition.hpp"

namespace dstd::rt {

class partition_stack {
 public:
  // `record`, when given, is told the span (for set_running_stack).
  explicit partition_stack(std::size_t usable, stack_span* record = nullptr)
      : usable_(usable), record_(record) {}

  boost::context::stack_context allocate() {
    span_ = allocate_stack(usable_);
    if (record_ != nullptr) *record_ = span_;
    boost::context::stack_context sc;
    sc.size = span_.usable();
    sc.sp = reinterpret_cast<void*>(span_.top);
    return sc;
  }
  void deallocate(boost::context::stack_context&) noexcept { release_stack(span_); }

 private:
  std::size_t usable_;
  stack_span* record_;
  stack_span span_;
};

}  // namespace dstd::rt
