// See host_list.hpp.
#include "runtime/launch/host_list.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace dstd::launch {

namespace {

constexpr unsigned long max_slots = 4096;

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool parse_slots(const std::string& text, unsigned& slots) {
  if (text.empty() || text.size() > 6) return false;
  unsigned long v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<unsigned long>(c - '0');
  }
  if (v < 1 || v > max_slots) return false;
  slots = static_cast<unsigned>(v);
  return true;
}

bool valid_host_name(const std::string& name) {
  if (name.empty() || name[0] == '-') return false;  // never an option of rsh
  for (char c : name)
    if (c == ' ' || c == '\t' || c == '\'' || c == '"' || c == '\\' || c == ',') return false;
  return true;
}

// "host" or "host:N" (`entry` is trimmed).
bool parse_entry(const std::string& entry, const std::string& where, host_slots& out,
                 std::string& error) {
  const auto colon = entry.rfind(':');
  out.name = colon == std::string::npos ? entry : entry.substr(0, colon);
  out.slots = 1;
  if (!valid_host_name(out.name)) {
    error = where + ": '" + entry + "' is not a host name";
    return false;
  }
  if (colon != std::string::npos && !parse_slots(entry.substr(colon + 1), out.slots)) {
    error = where + ": '" + entry + "': the number of slots after ':' must be 1.." +
            std::to_string(max_slots);
    return false;
  }
  return true;
}

}  // namespace

bool parse_hosts_spec(const std::string& spec, std::vector<host_slots>& out, std::string& error) {
  out.clear();
  std::size_t begin = 0;
  for (;;) {
    const auto comma = spec.find(',', begin);
    const std::string entry =
        trim(spec.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
    if (entry.empty()) {
      error = "--hosts '" + spec + "' has an empty entry (expected HOST[:SLOTS],...)";
      return false;
    }
    host_slots h;
    if (!parse_entry(entry, "--hosts", h, error)) return false;
    out.push_back(h);
    if (comma == std::string::npos) return true;
    begin = comma + 1;
  }
}

bool parse_hostfile_text(const std::string& text, const std::string& source,
                         std::vector<host_slots>& out, std::string& error) {
  out.clear();
  std::istringstream lines(text);
  std::string line;
  for (unsigned number = 1; std::getline(lines, line); ++number) {
    const std::string where = source + ":" + std::to_string(number);
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    line = trim(line);
    if (line.empty()) continue;
    host_slots h;
    const auto space = line.find_first_of(" \t");
    if (space == std::string::npos) {
      if (!parse_entry(line, where, h, error)) return false;
    } else {
      h.name = line.substr(0, space);
      const std::string rest = trim(line.substr(space));
      if (!valid_host_name(h.name) || h.name.find(':') != std::string::npos) {
        error = where + ": '" + h.name + "' is not a host name";
        return false;
      }
      if (rest.rfind("slots=", 0) != 0 || !parse_slots(rest.substr(6), h.slots)) {
        error = where + ": expected 'HOST', 'HOST:SLOTS' or 'HOST slots=SLOTS', got '" + line +
                "'";
        return false;
      }
    }
    out.push_back(h);
  }
  if (out.empty()) {
    error = source + " names no host";
    return false;
  }
  return true;
}

bool read_hostfile(const std::string& path, std::vector<host_slots>& out, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot read the host file " + path + ": " + std::strerror(errno);
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_hostfile_text(text.str(), path, out, error);
}

unsigned total_slots(const std::vector<host_slots>& hosts) {
  unsigned total = 0;
  for (const host_slots& h : hosts) total += h.slots;
  return total;
}

std::vector<std::string> place_nodes(const std::vector<host_slots>& hosts, unsigned nodes) {
  std::vector<std::string> placed;
  for (const host_slots& h : hosts)
    for (unsigned k = 0; k < h.slots && placed.size() < nodes; ++k) placed.push_back(h.name);
  return placed;
}

bool is_local_host(const std::string& name) {
  if (name == "localhost") return true;
  char self[256] = {};
  if (gethostname(self, sizeof self - 1) != 0) return false;
  const std::string full(self);
  return name == full || name == full.substr(0, full.find('.'));
}

}  // namespace dstd::launch
