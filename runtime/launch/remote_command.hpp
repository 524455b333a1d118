// The command line that starts a node on another host through --rsh.
//
// Why a file of its own: the node's environment and program travel as one
// shell command (ssh runs it with the remote user's shell), so every word
// must be quoted exactly once, whatever it contains. The command is
//   RSH... HOST "cd 'CWD' && exec env 'NAME=value'... 'PROGRAM' 'ARG'..."
// (PROGRAM absolute: the same binary path on every host).
#pragma once

#include <string>
#include <vector>

namespace dstd::launch {

// `word` in single quotes, each ' inside written '\''.
std::string shell_quote(const std::string& word);

// `rsh` split at spaces and tabs, then `host`, then the command.
std::vector<std::string> remote_argv(const std::string& rsh, const std::string& host,
                                     const std::vector<std::string>& env, const std::string& cwd,
                                     const std::string& program,
                                     const std::vector<std::string>& args);

}  // namespace dstd::launch
