// The example apps' command lines: "--name value" flags (and bare switches),
// numbers that must be positive, and a usage message with exit status 2 for
// anything else. A plain std header, like the apps themselves.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

class app_flags {
 public:
  // `usage` lists the flags, e.g. "[--threads T] [--ops N]".
  app_flags(const char* program, const char* usage, int argc, char** argv)
      : program_(program), usage_(usage), argc_(argc), argv_(argv) {}

  // Moves to the next flag; false when there are none left.
  bool next() {
    if (++at_ >= argc_) return false;
    flag_ = argv_[at_];
    return true;
  }
  bool is(const char* name) const { return flag_ == name; }
  const std::string& flag() const { return flag_; }

  // The flag's value, as text or as a positive number.
  const char* text() {
    if (at_ + 1 >= argc_) fail("missing value after " + flag_);
    return argv_[++at_];
  }
  std::size_t number() {
    const char* v = text();
    char* end = nullptr;
    const unsigned long long n = std::strtoull(v, &end, 10);
    if (end == v || *end != '\0' || n == 0) fail(flag_ + " needs a positive number, got '" + v + "'");
    return static_cast<std::size_t>(n);
  }

  [[noreturn]] void fail(const std::string& why) const {
    std::fprintf(stderr, "%s: %s\nusage: %s %s\n", program_, why.c_str(), program_, usage_);
    std::exit(2);
  }

 private:
  const char* program_;
  const char* usage_;
  int argc_;
  char** argv_;
  int at_ = 0;
  std::string flag_;
};
