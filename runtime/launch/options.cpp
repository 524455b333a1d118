// Command-line parsing and usage text for dstdrun; see options.hpp.
#include "runtime/launch/options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "runtime/common/layout.hpp"
#include "runtime/launch/diag.hpp"
#include "runtime/launch/fd_io.hpp"
#include "runtime/launch/host_list.hpp"
#include "runtime/launch/program_path.hpp"
#include "runtime/transport/backend.hpp"

#ifndef DSTD_VERSION
#define DSTD_VERSION "unknown"
#endif

namespace dstd::launch {

namespace layout = dstd::rt::layout;

namespace {

constexpr double max_seconds = 1e8;  // keeps deadlines far from overflow

const char* const help_text =
    "usage: dstdrun -n N [options] PROGRAM [ARGS...]\n"
    "\n"
    "Starts N node processes of PROGRAM (a program linked with libdstd) on this\n"
    "host and supervises them. main() runs on node 0; the other nodes serve it.\n"
    "If any node fails, every other node is stopped within seconds and dstdrun\n"
    "says which node failed and how. The exit status is the program's.\n"
    "\n"
    "options:\n"
    "  -n, --nodes N          number of nodes, 1..64 (required without --hosts)\n"
    "  --transport NAME       how nodes talk: shm (default: shared memory, one\n"
    "                         host) or ucx (UCX: TCP, RDMA or shared memory, as\n"
    "                         UCX_TLS and UCX_NET_DEVICES select; the default\n"
    "                         with --hosts) or verbs (RDMA through libibverbs\n"
    "                         and librdmacm; DSTD_VERBS_DEVICE, DSTD_VERBS_GID_INDEX)\n"
    "  --hosts H1[:S],H2[:S]  run the nodes on these hosts, S slots each (default\n"
    "                         1), in order: H1's slots first; -n defaults to the\n"
    "                         total; a host other than localhost or this one is\n"
    "                         reached with ssh\n"
    "  --hostfile FILE        the hosts from FILE: a line per host, 'HOST',\n"
    "                         'HOST:S' or 'HOST slots=S'; '#' starts a comment\n"
    "  --rsh CMD              start remote nodes with CMD HOST COMMAND (default\n"
    "                         ssh; CMD is split at spaces)\n"
    "  --launcher-address A   the IPv4 address remote nodes reach dstdrun at\n"
    "                         (default: $DSTD_LAUNCHER_ADDRESS, else this host's\n"
    "                         address on the route to the first remote host)\n"
    "  --tag-output           prefix each output line of node k with \"[node k] \"\n"
    "  --stats[=table]        print the nodes' counters (faults, pages fetched,\n"
    "                         diff bytes, messages, ...) when the program ends:\n"
    "                         a row per node and a total row, on stderr\n"
    "  --stats=json FILE      write the same counters to FILE as JSON instead\n"
    "  --trace FILE           write a trace of the run to FILE (Chrome/Perfetto\n"
    "                         JSON: open it in ui.perfetto.dev): per node and\n"
    "                         worker, threads running, page faults, releases,\n"
    "                         acquires, waits and messages; the last\n"
    "                         $DSTD_TRACE_EVENTS (default 65536) events per node\n"
    "  --timeout SECONDS      stop every node and exit 124 after this long\n"
    "  --join-timeout SECONDS how long the nodes may take to start and meet\n"
    "                         (default 30)\n"
    "  --partition-gb G       GiB of global address space homed at each node\n"
    "                         (default: $DSTD_PARTITION_GB, else 64; nodes * G\n"
    "                         must not exceed 16384)\n"
    "  --help                 print this text and exit\n"
    "  --version              print the version and exit\n"
    "  --                     end of options\n"
    "\n"
    "Options may be written --name VALUE or --name=VALUE. PROGRAM without a\n"
    "slash is searched in PATH.\n"
    "\n"
    "exit status: the program's (node 0's) status; 128+S when a node was killed\n"
    "by signal S; a failing node's exit code; 124 on --timeout; 130 on Ctrl-C;\n"
    "2 for wrong arguments; 1 for other failures.\n";

parse_outcome usage_error(const std::string& what) {
  say("%s", what.c_str());
  std::string hint = std::string(usage_hint) + "\n";
  write_all(2, hint.data(), hint.size());
  return parse_outcome::exit_usage;
}

bool parse_whole_number(std::string_view s, unsigned long long& out) {
  if (s.empty() || s.size() > 18) return false;
  unsigned long long v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<unsigned long long>(c - '0');
  }
  out = v;
  return true;
}

bool parse_seconds(std::string_view s, double& out) {
  std::string copy(s);
  if (copy.empty()) return false;
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(copy.c_str(), &end);
  if (errno != 0 || end != copy.c_str() + copy.size() || !std::isfinite(v) || v <= 0 ||
      v > max_seconds)
    return false;
  out = v;
  return true;
}

// Checks a partition size given in GiB by `source` (an option or a variable).
parse_outcome check_partition(std::string_view value, const char* source, unsigned nodes,
                              std::uint64_t& bytes) {
  unsigned long long gb = 0;
  const std::string v(value);
  if (!parse_whole_number(value, gb))
    return usage_error(std::string(source) + " expects a whole number of GiB, got '" + v + "'");
  if (gb == 0) return usage_error(std::string(source) + " must be at least 1 (GiB)");
  const std::uint64_t max_gb = layout::global_span / layout::gib / nodes;
  if (gb > max_gb || !layout::fits(nodes, gb * layout::gib))
    return usage_error(std::string(source) + " " + v + " is too large for " +
                       std::to_string(nodes) + " " + nodes_word(nodes) + ": at most " +
                       std::to_string(max_gb) + " GiB per node fit the " +
                       std::to_string(layout::global_span / layout::gib) +
                       " GiB global range");
  bytes = gb * layout::gib;
  return parse_outcome::run;
}

// --hosts SPEC or --hostfile FILE: the host of every node, -n's default and
// check, and the transport (ucx unless given; shm only when all are local).
parse_outcome place_on_hosts(const std::string& spec, const std::string& file, bool have_nodes,
                             bool have_transport, launch_options& out) {
  std::vector<host_slots> hosts;
  std::string error;
  if (!(spec.empty() ? read_hostfile(file, hosts, error) : parse_hosts_spec(spec, hosts, error)))
    return usage_error(error);
  const unsigned slots = total_slots(hosts);
  const std::string source = spec.empty() ? "the host file " + file : "--hosts " + spec;
  if (!have_nodes) {
    if (slots > layout::max_nodes)
      return usage_error(source + " has " + std::to_string(slots) + " slots; at most " +
                         std::to_string(layout::max_nodes) + " nodes are supported (use -n)");
    out.nodes = slots;
  } else if (out.nodes > slots) {
    return usage_error("-n " + std::to_string(out.nodes) + " is more than the " +
                       std::to_string(slots) + " slots of " + source);
  }
  out.node_hosts = place_nodes(hosts, out.nodes);
  if (!have_transport) out.transport = "ucx";
  for (const std::string& h : out.node_hosts)
    if (out.transport == "shm" && !is_local_host(h))
      return usage_error("--transport shm cannot start nodes on host " + h +
                         ": shm runs on one host; use --transport ucx");
  return parse_outcome::run;
}

}  // namespace

const char* usage_text() { return help_text; }

parse_outcome parse_options(int argc, const char* const* argv, const char* partition_gb_env,
                            launch_options& out) {
  bool have_nodes = false;
  bool have_transport = false;
  std::string hosts_spec;  // --hosts
  std::string hostfile;    // --hostfile
  std::string partition_arg;
  bool have_partition_arg = false;

  int i = 1;
  while (i < argc) {
    const std::string_view arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') break;  // PROGRAM (a lone "-" too)

    std::string_view name = arg;
    std::string_view value;
    bool has_value = false;
    if (arg.substr(0, 2) == "--") {
      if (auto eq = arg.find('='); eq != std::string_view::npos) {
        name = arg.substr(0, eq);
        value = arg.substr(eq + 1);
        has_value = true;
      }
    } else if (arg.substr(0, 2) == "-n" && arg.size() > 2 && arg[2] >= '0' && arg[2] <= '9') {
      name = "-n";
      value = arg.substr(2);
      has_value = true;
    }
    const std::string name_s(name);
    auto take_value = [&]() {
      if (has_value) return true;
      if (i + 1 >= argc) return false;
      value = argv[++i];
      return true;
    };
    auto no_value = [&]() {
      return has_value ? usage_error("option " + name_s + " takes no value")
                       : parse_outcome::run;
    };

    if (name == "-h" || name == "--help") {
      if (no_value() != parse_outcome::run) return parse_outcome::exit_usage;
      std::fputs(help_text, stdout);
      std::fflush(stdout);
      return parse_outcome::exit_ok;
    } else if (name == "--version") {
      if (no_value() != parse_outcome::run) return parse_outcome::exit_usage;
      std::printf("dstdrun (dstd) %s\n", DSTD_VERSION);
      std::fflush(stdout);
      return parse_outcome::exit_ok;
    } else if (name == "--tag-output") {
      if (no_value() != parse_outcome::run) return parse_outcome::exit_usage;
      out.tag_output = true;
    } else if (name == "--stats") {
      if (has_value && value == "json") {
        if (i + 1 >= argc || argv[i + 1][0] == '\0')
          return usage_error("option --stats=json needs a file name (--stats=json FILE)");
        out.stats_json = argv[++i];
      } else if (has_value && value != "table") {
        return usage_error("option --stats takes no value, =table or =json FILE, got '" +
                           std::string(value) + "'");
      }
      out.stats = true;
    } else if (name == "--trace") {
      if (!take_value() || value.empty()) return usage_error("option --trace needs a file name");
      out.trace = std::string(value);
    } else if (name == "-n" || name == "--nodes") {
      if (!take_value()) return usage_error("option " + name_s + " needs a number of nodes");
      unsigned long long n = 0;
      if (!parse_whole_number(value, n))
        return usage_error("option " + name_s + " expects a number of nodes, got '" +
                           std::string(value) + "'");
      if (n < 1) return usage_error("the number of nodes must be at least 1, got " +
                                    std::string(value));
      if (n > layout::max_nodes)
        return usage_error("at most " + std::to_string(layout::max_nodes) +
                           " nodes are supported, got " + std::string(value));
      out.nodes = static_cast<unsigned>(n);
      have_nodes = true;
    } else if (name == "--transport") {
      if (!take_value())
        return usage_error(std::string("option --transport needs a name (") +
                           dstd::rt::known_transports + ")");
#ifndef DSTD_HAVE_VERBS
      if (value == "verbs") {
        say("this dstd was built without the verbs transport (libibverbs and librdmacm were "
            "not found); use --transport ucx");
        return parse_outcome::exit_usage;
      }
#endif
      if (value != "shm" && value != "ucx" && value != "verbs")
        return usage_error("unknown transport '" + std::string(value) + "' (known: " +
                           dstd::rt::known_transports + ")");
      out.transport = std::string(value);
      have_transport = true;
    } else if (name == "--hosts" || name == "--hostfile") {
      if (!take_value() || value.empty())
        return usage_error("option " + name_s + (name == "--hosts" ? " needs HOST[:SLOTS],..." : " needs a file name"));
      if (!hosts_spec.empty() || !hostfile.empty())
        return usage_error("give the hosts once: --hosts or --hostfile");
      (name == "--hosts" ? hosts_spec : hostfile) = std::string(value);
    } else if (name == "--rsh") {
      if (!take_value() || value.find_first_not_of(" \t") == std::string_view::npos)
        return usage_error("option --rsh needs a command");
      out.rsh = std::string(value);
    } else if (name == "--launcher-address") {
      if (!take_value() || value.empty())
        return usage_error("option --launcher-address needs an IPv4 address");
      out.launcher_address = std::string(value);
    } else if (name == "--timeout" || name == "--join-timeout") {
      if (!take_value()) return usage_error("option " + name_s + " needs a number of seconds");
      double s = 0;
      if (!parse_seconds(value, s))
        return usage_error("option " + name_s + " expects a positive number of seconds, got '" +
                           std::string(value) + "'");
      (name == "--timeout" ? out.timeout_s : out.join_timeout_s) = s;
    } else if (name == "--partition-gb") {
      if (!take_value()) return usage_error("option --partition-gb needs a size in GiB");
      partition_arg = std::string(value);
      have_partition_arg = true;
    } else {
      return usage_error("unknown option '" + std::string(arg) + "'");
    }
    ++i;
  }

  if (!hosts_spec.empty() || !hostfile.empty()) {
    if (place_on_hosts(hosts_spec, hostfile, have_nodes, have_transport, out) != parse_outcome::run)
      return parse_outcome::exit_usage;
  } else if (!have_nodes) {
    return usage_error("the number of nodes is required (-n N)");
  }
  if (i >= argc) return usage_error("no program given");

  if (have_partition_arg) {
    if (check_partition(partition_arg, "--partition-gb", out.nodes, out.partition_bytes) !=
        parse_outcome::run)
      return parse_outcome::exit_usage;
  } else if (partition_gb_env != nullptr && *partition_gb_env != '\0') {
    if (check_partition(partition_gb_env, "DSTD_PARTITION_GB", out.nodes,
                        out.partition_bytes) != parse_outcome::run)
      return parse_outcome::exit_usage;
  } else {
    out.partition_bytes = layout::default_partition_bytes;
    if (!layout::fits(out.nodes, out.partition_bytes))
      return usage_error("the default partition size does not fit; use --partition-gb");
  }

  out.program = argv[i];
  std::string error;
  if (!find_program(out.program, out.program_path, error)) return usage_error(error);
  out.args.assign(argv + i, argv + argc);
  return parse_outcome::run;
}

}  // namespace dstd::launch
