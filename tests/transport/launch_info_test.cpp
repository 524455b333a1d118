// Who a node is, from its environment (runtime/transport/launch_info.hpp,
// foreign_launch.hpp): dstdrun's variables first, then PMIx's, Open MPI's
// and SLURM's, with the one error format for bad values. Parsed here again
// and again with parse_launch_environment(); the test program itself is a
// plain one-node run (its own launch was parsed at its first malloc).
#include <gtest/gtest.h>

#include <cstdlib>
#include <initializer_list>
#include <utility>

#include "runtime/common/layout.hpp"
#include "runtime/transport/launch_info.hpp"

namespace {

using dstd::rt::launch_info;
using dstd::rt::launcher;
using dstd::rt::parse_launch_environment;
namespace layout = dstd::rt::layout;

constexpr const char* launch_variables[] = {
    "DSTD_NODE_ID", "DSTD_NODE_COUNT", "DSTD_TRANSPORT", "DSTD_PARTITION_BYTES",
    "DSTD_PARTITION_GB", "PMIX_RANK", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
    "SLURM_PROCID", "SLURM_NTASKS"};

using variables = std::initializer_list<std::pair<const char*, const char*>>;

void clear() {
  for (const char* v : launch_variables) unsetenv(v);
}

// The launch that `env` (and nothing else of the launch's variables) gives.
launch_info parse_with(variables env) {
  clear();
  for (const auto& [name, value] : env) setenv(name, value, 1);
  return parse_launch_environment();
}

void expect_node(const launch_info& l, launcher by, unsigned self, unsigned nodes) {
  EXPECT_TRUE(l.launched);
  EXPECT_EQ(l.by, by);
  EXPECT_EQ(l.self, self);
  EXPECT_EQ(l.nodes, nodes);
}

class LaunchInfo : public testing::Test {
 protected:
  void TearDown() override { clear(); }
};

TEST_F(LaunchInfo, NoLauncherIsOneNode) {
  const launch_info l = parse_with({});
  EXPECT_FALSE(l.launched);
  EXPECT_EQ(l.by, launcher::none);
  EXPECT_EQ(l.self, 0u);
  EXPECT_EQ(l.nodes, 1u);
  EXPECT_EQ(l.partition_bytes, layout::default_partition_bytes);
}

TEST_F(LaunchInfo, MpirunThroughPmix) {
  const launch_info l = parse_with(
      {{"PMIX_RANK", "2"}, {"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "4"}});
  expect_node(l, launcher::pmix, 2, 4);
  EXPECT_STREQ(l.kind, "ucx");
  EXPECT_STREQ(l.rank_variable, "PMIX_RANK");
  EXPECT_EQ(l.partition_bytes, layout::default_partition_bytes);
}

TEST_F(LaunchInfo, SrunThroughPmixTakesTheSizeFromSlurm) {
  const launch_info l = parse_with({{"PMIX_RANK", "0"}, {"SLURM_PROCID", "0"},
                                    {"SLURM_NTASKS", "8"}, {"DSTD_PARTITION_GB", "2"}});
  expect_node(l, launcher::pmix, 0, 8);
  EXPECT_EQ(l.partition_bytes, 2 * layout::gib);
}

TEST_F(LaunchInfo, OpenMpiOrSlurmWithoutPmix) {
  launch_info l = parse_with({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "3"}});
  expect_node(l, launcher::plain, 1, 3);
  EXPECT_STREQ(l.rank_variable, "OMPI_COMM_WORLD_RANK");
  l = parse_with({{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "6"}});
  expect_node(l, launcher::plain, 5, 6);
  EXPECT_STREQ(l.rank_variable, "SLURM_PROCID");
  EXPECT_STREQ(l.kind, "ucx");
}

TEST_F(LaunchInfo, AJobOfOneIsAPlainRun) {
  EXPECT_FALSE(parse_with({{"PMIX_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "1"}}).launched);
  // No peers, nothing to refuse shm for.
  EXPECT_FALSE(
      parse_with({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}, {"DSTD_TRANSPORT", "shm"}})
          .launched);
}

TEST_F(LaunchInfo, DstdrunComesFirst) {
  const launch_info l =
      parse_with({{"DSTD_NODE_ID", "1"}, {"DSTD_NODE_COUNT", "2"},
                  {"DSTD_PARTITION_BYTES", "1073741824"}, {"PMIX_RANK", "3"},
                  {"OMPI_COMM_WORLD_SIZE", "4"}});
  expect_node(l, launcher::dstdrun, 1, 2);
  EXPECT_STREQ(l.kind, "shm");
}

TEST_F(LaunchInfo, TransportCanBeChosenButNotShm) {
  const auto with_transport = [](const char* kind) {
    return parse_with({{"PMIX_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}, {"DSTD_TRANSPORT", kind}});
  };
  EXPECT_STREQ(with_transport("ucx").kind, "ucx");
  EXPECT_STREQ(with_transport("verbs").kind, "verbs");  // the factory judges names
  EXPECT_EXIT(with_transport("shm"), testing::ExitedWithCode(1),
              "DSTD_TRANSPORT=shm needs dstdrun, which creates the segments the nodes share; "
              "this node was started by another launcher \\(PMIX_RANK=0\\)");
}

struct bad_case {
  const char* name;
  variables env;
  const char* says;
};

TEST_F(LaunchInfo, BadValuesEndTheNodeNamingTheVariable) {
  const bad_case cases[] = {
      {"rank not a number", {{"PMIX_RANK", "one"}, {"OMPI_COMM_WORLD_SIZE", "2"}},
       "PMIX_RANK=one is not a number from 0 to 1"},
      {"rank past the size", {{"PMIX_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "2"}},
       "PMIX_RANK=2 is not a number from 0 to 1"},
      {"negative rank", {{"SLURM_PROCID", "-1"}, {"SLURM_NTASKS", "2"}},
       "SLURM_PROCID=-1 is not a number from 0 to 1"},
      {"size zero", {{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "0"}},
       "OMPI_COMM_WORLD_SIZE=0 is not a number from 1 to 64"},
      {"size too large", {{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "65"}},
       "SLURM_NTASKS=65 is not a number from 1 to 64"},
      {"rank without size", {{"SLURM_PROCID", "0"}}, "SLURM_NTASKS is not set"},
      {"pmix without size", {{"PMIX_RANK", "0"}},
       "PMIX_RANK is set, but neither OMPI_COMM_WORLD_SIZE \\(mpirun\\) nor SLURM_NTASKS "
       "\\(srun\\) says how many processes the job has"},
      {"partitions that do not fit",
       {{"PMIX_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "64"}, {"DSTD_PARTITION_GB", "1024"}},
       "64 partitions of 1099511627776 bytes do not fit the global range"},
  };
  for (const bad_case& c : cases) {
    EXPECT_EXIT(parse_with(c.env), testing::ExitedWithCode(1), c.says) << c.name;
  }
}

}  // namespace
