// The hosts of a run (--hosts, --hostfile) and which node runs where.
//
// Why a file of its own: the host list is pure text handling (no sockets,
// no processes), checked before any node starts, so every mistake in it is
// a usage error naming the entry. Nodes are placed in order: the first
// host's slots, then the second's, and so on.
#pragma once

#include <string>
#include <vector>

namespace dstd::launch {

struct host_slots {
  std::string name;
  unsigned slots = 1;
};

// "h1:2,h2:2,h3" (a host without ":N" has one slot). False with a message
// in `error` on an empty entry, a bad count or an empty list.
bool parse_hosts_spec(const std::string& spec, std::vector<host_slots>& out, std::string& error);

// The text of a host file: a host a line, "host", "host:N" or "host slots=N",
// blank lines and '#' comments ignored. `source` names the file in errors.
bool parse_hostfile_text(const std::string& text, const std::string& source,
                         std::vector<host_slots>& out, std::string& error);

// Reads and parses the file at `path`.
bool read_hostfile(const std::string& path, std::vector<host_slots>& out, std::string& error);

unsigned total_slots(const std::vector<host_slots>& hosts);

// The host of each of `nodes` nodes (nodes <= total_slots(hosts)).
std::vector<std::string> place_nodes(const std::vector<host_slots>& hosts, unsigned nodes);

// "localhost" or this machine's name (in full or up to its first dot): such
// a node is forked here as without --hosts.
bool is_local_host(const std::string& name);

}  // namespace dstd::launch
