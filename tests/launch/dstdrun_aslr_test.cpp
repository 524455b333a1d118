// Nodes that another launcher (srun, mpirun) starts with address-space
// randomization on turn it off themselves, by re-executing, and the run
// works as under dstdrun (runtime/control/aslr_reexec.hpp). dstdrun plays
// that launcher here: DSTD_TEST_KEEP_ASLR makes it leave randomization on.
#include <fstream>
#include <string>

#include "launch_test_util.hpp"

namespace dstd::test {
namespace {

TEST(DstdrunAslr, NodesStartedWithRandomizationOnTurnItOffThemselves) {
  std::ifstream setting("/proc/sys/kernel/randomize_va_space");
  int randomize = 0;
  setting >> randomize;
  if (randomize == 0) GTEST_SKIP() << "address-space randomization is off on this machine";
  run_options o;
  o.env = {"DSTD_TEST_KEEP_ASLR=1"};
  const run_result r = dstdrun({"-n", "3", "--timeout", "60", output_program(), "lines", "2", "20"}, o);
  ASSERT_EQ(r.exit_code, 0) << describe(r).substr(0, 2000);
  for (int node = 0; node < 3; ++node) {
    EXPECT_NE(r.out.find("node " + std::to_string(node) + " line 1 "), std::string::npos) << r.out;
  }
  EXPECT_EQ(r.err.find("randomization"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace dstd::test
