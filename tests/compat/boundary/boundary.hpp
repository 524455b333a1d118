// The interface between a translation unit built with compat/ and one
// built without it, in one program (compat/README.md, "The translation-unit
// boundary"). Only types compat/ leaves alone cross it: builtins, strings,
// and libstdc++ classes whose headers compat/ reads with libstdc++'s own
// smart pointers and mutexes (std::regex here). A std::mutex, std::thread,
// std::shared_ptr, std::atomic, ... made on one side must not be used on
// the other: they are different types there.
#pragma once

#include <regex>
#include <string>

namespace boundary {

// Built with compat/: threads, mutexes, smart pointers and atomics are
// dstd's. Each returns a result the caller checks.
long compat_side_counter(int threads, int rounds);
long compat_side_shared_owners();
std::regex compat_side_regex(const std::string& pattern);
bool compat_side_matches(const std::regex& re, const std::string& text);

// Built without compat/: the same names are libstdc++'s.
long plain_side_counter(int threads, int rounds);
long plain_side_shared_owners();
std::regex plain_side_regex(const std::string& pattern);
bool plain_side_matches(const std::regex& re, const std::string& text);

}  // namespace boundary
