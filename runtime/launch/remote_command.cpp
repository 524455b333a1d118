// See remote_command.hpp.
#include "runtime/launch/remote_command.hpp"

namespace dstd::launch {

std::string shell_quote(const std::string& word) {
  std::string q(1, '\'');
  for (char c : word) {
    if (c == '\'') {
      q.append("'\\''");
    } else {
      q.push_back(c);
    }
  }
  q.push_back('\'');
  return q;
}

std::vector<std::string> remote_argv(const std::string& rsh, const std::string& host,
                                     const std::vector<std::string>& env, const std::string& cwd,
                                     const std::string& program,
                                     const std::vector<std::string>& args) {
  std::vector<std::string> argv;
  std::size_t k = 0;
  while ((k = rsh.find_first_not_of(" \t", k)) != std::string::npos) {
    const std::size_t end = rsh.find_first_of(" \t", k);
    argv.push_back(rsh.substr(k, end == std::string::npos ? std::string::npos : end - k));
    k = end;
  }
  argv.push_back(host);
  std::string command = "cd ";
  command += shell_quote(cwd);
  command += " && exec env";
  auto word = [&](const std::string& w) {
    command += ' ';
    command += shell_quote(w);
  };
  for (const std::string& e : env) word(e);
  word(program);
  for (std::size_t i = 1; i < args.size(); ++i) word(args[i]);
  argv.push_back(command);
  return argv;
}

}  // namespace dstd::launch
