// PROGRAM lookup; see program_path.hpp.
#include "runtime/launch/program_path.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace dstd::launch {

namespace {

// 0 when `path` is an executable regular file, else an errno value.
int check_executable(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return errno;
  if (S_ISDIR(st.st_mode)) return EISDIR;
  if (!S_ISREG(st.st_mode)) return EACCES;
  if (access(path.c_str(), X_OK) != 0) return errno;
  return 0;
}

std::string describe(int err) {
  switch (err) {
    case EACCES: return "not an executable file (permission denied)";
    case EISDIR: return "is a directory";
    case ENOENT: return "no such file";
    default: return std::strerror(err);
  }
}

}  // namespace

bool find_program(const std::string& program, std::string& found, std::string& error) {
  if (program.empty()) {
    error = "the program name is empty";
    return false;
  }
  if (program.find('/') != std::string::npos) {
    int err = check_executable(program);
    if (err == 0) {
      found = program;
      return true;
    }
    error = "cannot run '" + program + "': " + describe(err);
    return false;
  }

  const char* path_env = std::getenv("PATH");
  std::string path = path_env != nullptr ? path_env : "/usr/local/bin:/bin:/usr/bin";
  int first_error = 0;  // like execvp: a hit we may not run beats "not found"
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    int err = check_executable(candidate);
    if (err == 0) {
      found = candidate;
      return true;
    }
    if (err != ENOENT && err != ENOTDIR && first_error == 0) {
      first_error = err;
      error = "cannot run '" + candidate + "': " + describe(err);
    }
    start = end + 1;
  }
  if (first_error == 0) error = "program '" + program + "' not found in PATH";
  return false;
}

}  // namespace dstd::launch
