// See stats_report.hpp.
#include "runtime/launch/stats_report.hpp"

#include <algorithm>
#include <charconv>
#include <cstddef>

namespace dstd::launch {

namespace {

bool is_name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

// The counter names in order of first appearance, and the sum of each.
struct totals {
  std::vector<std::string> names;
  std::vector<std::uint64_t> sums;
};

totals add_up(const std::vector<node_stats_row>& rows) {
  totals t;
  for (const node_stats_row& r : rows) {
    for (const auto& [name, value] : r.fields) {
      auto it = std::find(t.names.begin(), t.names.end(), name);
      if (it == t.names.end()) {
        t.names.push_back(name);
        t.sums.push_back(0);
        it = t.names.end() - 1;
      }
      t.sums[static_cast<std::size_t>(it - t.names.begin())] += value;
    }
  }
  return t;
}

// The row's value for `name`, as text ("-": the node did not send it).
std::string value_of(const node_stats_row& r, const std::string& name) {
  for (const auto& [n, v] : r.fields) {
    if (n == name) return std::to_string(v);
  }
  return "-";
}

void pad_left(std::string& out, const std::string& cell, std::size_t width) {
  out.append(width - std::min(width, cell.size()), ' ');
  out += cell;
}

}  // namespace

std::optional<stats_fields> parse_stats_fields(std::string_view text) {
  stats_fields fields;
  std::size_t at = 0;
  while (at < text.size()) {
    if (text[at] == ' ') {
      ++at;
      continue;
    }
    const std::size_t eq = text.find('=', at);
    if (eq == std::string_view::npos || eq == at) return std::nullopt;
    const std::string_view name = text.substr(at, eq - at);
    if (!std::all_of(name.begin(), name.end(), is_name_char)) return std::nullopt;
    std::size_t end = text.find(' ', eq);
    if (end == std::string_view::npos) end = text.size();
    std::uint64_t value = 0;
    const char* first = text.data() + eq + 1;
    const char* last = text.data() + end;
    const auto [stop, error] = std::from_chars(first, last, value);
    if (error != std::errc{} || stop != last || first == last) return std::nullopt;
    fields.emplace_back(std::string(name), value);
    at = end;
  }
  return fields;
}

std::string stats_table(const std::vector<node_stats_row>& rows) {
  const totals t = add_up(rows);
  if (t.names.empty()) return {};
  // Cells: the header, a row per node, the total row; column 0 names the row.
  std::vector<std::vector<std::string>> cells;
  cells.push_back({"node"});
  for (const std::string& name : t.names) cells.back().push_back(name);
  for (const node_stats_row& r : rows) {
    if (r.fields.empty()) continue;
    cells.push_back({std::to_string(r.node)});
    for (const std::string& name : t.names) cells.back().push_back(value_of(r, name));
  }
  cells.push_back({"total"});
  for (std::uint64_t sum : t.sums) cells.back().push_back(std::to_string(sum));

  std::vector<std::size_t> width(t.names.size() + 1, 0);
  for (const auto& row : cells) {
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const auto& row : cells) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c > 0) out += "  ";
      pad_left(out, row[c], width[c]);
    }
    out += '\n';
  }
  return out;
}

std::string stats_json(const std::vector<node_stats_row>& rows) {
  const totals t = add_up(rows);
  std::string out = "{\"nodes\": [";
  bool first_row = true;
  for (const node_stats_row& r : rows) {
    if (r.fields.empty()) continue;
    out += first_row ? "\n  " : ",\n  ";
    first_row = false;
    out += "{\"node\": " + std::to_string(r.node);
    for (const auto& [name, value] : r.fields) {
      out += ", \"" + name + "\": " + std::to_string(value);  // names are [a-z0-9_]
    }
    out += "}";
  }
  out += "],\n \"total\": {";
  for (std::size_t k = 0; k < t.names.size(); ++k) {
    out += (k == 0 ? "\"" : ", \"") + t.names[k] + "\": " + std::to_string(t.sums[k]);
  }
  out += "}}\n";
  return out;
}

}  // namespace dstd::launch
