// The one environment parser (runtime/common/env.hpp): values, defaults,
// and the one error format for bad values.
#include <gtest/gtest.h>

#include <cstdlib>

#include "runtime/common/env.hpp"

namespace {

namespace env = dstd::rt::env;

TEST(Env, NumbersInRangeAndDefaults) {
  setenv("DSTD_TEST_NUMBER", "42", 1);
  EXPECT_EQ(env::number("DSTD_TEST_NUMBER", 1, 100, 7), 42u);
  setenv("DSTD_TEST_NUMBER", "", 1);  // empty counts as unset
  EXPECT_EQ(env::number("DSTD_TEST_NUMBER", 1, 100, 7), 7u);
  unsetenv("DSTD_TEST_NUMBER");
  EXPECT_EQ(env::number("DSTD_TEST_NUMBER", 1, 100, 7), 7u);
  EXPECT_EQ(env::text("DSTD_TEST_NUMBER"), nullptr);
}

TEST(Env, BadNumbersEndTheNodeNamingTheVariable) {
  for (const char* bad : {"abc", "0", "101", "-5", "12x", "99999999999999999999999"}) {
    setenv("DSTD_TEST_NUMBER", bad, 1);
    EXPECT_EXIT(env::number("DSTD_TEST_NUMBER", 1, 100, 7), testing::ExitedWithCode(1),
                "DSTD_TEST_NUMBER=.* is not a number from 1 to 100")
        << bad;
  }
  unsetenv("DSTD_TEST_REQUIRED");
  EXPECT_EXIT(env::required_number("DSTD_TEST_REQUIRED", 0, 3), testing::ExitedWithCode(1),
              "DSTD_TEST_REQUIRED is not set; start the program with dstdrun");
}

TEST(Env, ChoicesByIndex) {
  setenv("DSTD_TEST_CHOICE", "local", 1);
  EXPECT_EQ(env::choice("DSTD_TEST_CHOICE", {"spread", "local"}, 0), 1u);
  unsetenv("DSTD_TEST_CHOICE");
  EXPECT_EQ(env::choice("DSTD_TEST_CHOICE", {"spread", "local"}, 0), 0u);
  setenv("DSTD_TEST_CHOICE", "far", 1);
  EXPECT_EXIT(env::choice("DSTD_TEST_CHOICE", {"a", "b", "c"}, 0), testing::ExitedWithCode(1),
              "DSTD_TEST_CHOICE=far is not one of a, b or c");
}

}  // namespace
