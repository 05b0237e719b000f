// The one check a mode makes of the options given to it (api/mode_options.h).
#include "api/mode_options.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace gpuplan::api {
namespace {

RequestBase given(std::vector<std::string> options) {
  RequestBase req;
  req.given_options = std::move(options);
  return req;
}

std::string why(std::string_view o) { return std::string("not read here (") + std::string(o) + ")"; }

TEST(ModeOptions, ReadsListRefusesEveryOtherGivenOption) {
  const auto req = given({"--model", "--tp", "--isl", "--batch", "--tp"});
  EXPECT_EQ(options_not_read(req, {"--model", "--isl"}), (std::vector<std::string>{"--tp", "--batch"}));
  try {
    refuse_options_not_read(req, {"--model", "--isl"}, why);
    ADD_FAILURE() << "nothing refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--tp");  // the first given, named; the others listed once
    EXPECT_STREQ(e.what(), "--tp: not read here (--tp); also given: --batch");
  }
  EXPECT_NO_THROW(refuse_options_not_read(given({"--model"}), {"--model", "--isl"}, why));
  EXPECT_NO_THROW(refuse_options_not_read(given({}), {}, why));
}

TEST(ModeOptions, IgnoredListRefusesOnlyThose) {
  EXPECT_NO_THROW(refuse_ignored_options(given({"--model", "--tp"}), {"--prefix-hit", "--kv-offload"}, "infer only"));
  try {
    refuse_ignored_options(given({"--model", "--kv-offload", "--prefix-hit"}), {"--prefix-hit", "--kv-offload"},
                           "infer only");
    ADD_FAILURE() << "nothing refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--kv-offload");
    EXPECT_STREQ(e.what(), "--kv-offload: infer only; also given: --prefix-hit");
  }
}

}  // namespace
}  // namespace gpuplan::api
