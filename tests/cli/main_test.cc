#include <gtest/gtest.h>

#include "run_cli.h"

TEST(Cli, HelpListsCommands) {
  auto r = run_gpuplan("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("catalog"), std::string::npos);
  EXPECT_NE(r.out.find("memory"), std::string::npos);
}

TEST(Cli, UnknownCommandSuggests) {
  auto r = run_gpuplan("catalgo list");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean 'catalog'"), std::string::npos) << r.err;
}

TEST(Cli, UnknownOptionIsBadInput) {
  auto r = run_gpuplan("catalog --no-such-option");
  EXPECT_EQ(r.exit_code, 2);
}
