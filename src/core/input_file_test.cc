// Input files (core/input_file.h) and output paths (core/output_path.h): what is read, what is
// refused, and which outputs would overwrite an input.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/input_file.h"
#include "core/output_path.h"
#include "core/text.h"

namespace gpuplan {
namespace {

namespace fs = std::filesystem;

const std::string kDir = "/tmp/gpuplan_core_files";

std::string write(const std::string& name, const std::string& text) {
  fs::create_directories(fs::path(kDir + "/" + name).parent_path());
  std::ofstream(kDir + "/" + name, std::ios::binary) << text;
  return kDir + "/" + name;
}

std::string refusal(const std::string& path, const std::string& field = "--dataset") {
  try {
    (void)read_input_file(path, field);
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), field);
    return e.what();
  }
  return "";
}

TEST(InputFile, ReadsARegularFile) {
  const auto p = write("a.csv", "x,y\n1,2\n");
  EXPECT_EQ(read_input_file(p, "--dataset"), "x,y\n1,2\n");
  EXPECT_EQ(find_input_file(p), p);
}

TEST(InputFile, RefusesDirectoriesDevicesAndFifos) {
  fs::create_directories(kDir + "/dir");
  EXPECT_NE(refusal(kDir + "/dir").find("is a directory"), std::string::npos);
  EXPECT_NE(refusal("/dev/zero").find("not a regular file"), std::string::npos);
  EXPECT_NE(refusal("/dev/stdin").find("not a regular file"), std::string::npos);
  const std::string fifo = kDir + "/fifo";
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(refusal(fifo).find("not a regular file"), std::string::npos);  // returns: no writer waited for
  EXPECT_FALSE(find_input_file(fifo));
  fs::remove(fifo);
  EXPECT_NE(refusal(kDir + "/none.csv").find("cannot read file"), std::string::npos);
  EXPECT_NE(refusal("").find("empty"), std::string::npos);
}

TEST(InputFile, ScopeReadsOnlyUnderItsRootsAndTellsNothingOfOtherPaths) {
  const auto inside = write("root/sub/rows.csv", "1\n");
  write("outside.csv", "secret line\n");
  fs::remove(kDir + "/root/link");
  fs::create_symlink(kDir + "/outside.csv", kDir + "/root/link");
  InputFilePolicy policy;
  policy.roots = {kDir + "/root"};
  policy.max_bytes = 100;
  InputFileScope scope(policy);
  EXPECT_EQ(read_input_file(inside, "--dataset"), "1\n");
  EXPECT_EQ(read_input_file("sub/rows.csv", "--dataset"), "1\n");  // relative: under a root
  const std::string there = refusal(kDir + "/outside.csv"), absent = refusal(kDir + "/absent.csv");
  EXPECT_EQ(there.find("secret"), std::string::npos);
  EXPECT_EQ(there.substr(0, there.find('\'')), absent.substr(0, absent.find('\'')));
  EXPECT_EQ(refusal(kDir + "/root/../outside.csv").find("secret"), std::string::npos);
  EXPECT_NE(refusal(kDir + "/root/link").find("no readable file"), std::string::npos);  // a link out
  EXPECT_NE(refusal("../outside.csv").find("no readable file"), std::string::npos);
  EXPECT_FALSE(find_input_file(kDir + "/outside.csv"));
  EXPECT_NE(refusal(write("root/big.csv", std::string(200, 'x'))).find("at most 100"), std::string::npos);
}

TEST(OutputPath, RefusesAnInputOfTheSameRunThroughLinksAndDotDot) {
  const auto data = write("out/data.csv", "1\n");
  fs::remove(kDir + "/out/alias.csv");
  fs::create_symlink(data, kDir + "/out/alias.csv");
  const std::vector<NamedInput> inputs = {{"--dataset", data}};
  for (const std::string& out : {data, kDir + "/out/alias.csv", kDir + "/out/../out/./data.csv"}) {
    try {
      check_output_path(out, "--write-bands", inputs);
      FAIL() << out;
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "--write-bands");
      EXPECT_NE(std::string(e.what()).find("--dataset"), std::string::npos);
    }
  }
  EXPECT_NO_THROW(check_output_path(kDir + "/out/new.yaml", "--write-bands", inputs));
  EXPECT_THROW(check_output_path(kDir + "/out", "--out", inputs), InputError);  // a directory
  // A file inside an input directory (--catalog DIR).
  const auto catalog_file = write("cat/gpus.yaml", "x: 1\n");
  EXPECT_THROW(check_output_path(catalog_file, "--write", {{"--catalog", kDir + "/cat"}}), InputError);
}

TEST(OutputPath, InputsOfACommandLineLeaveOutTheOutputs) {
  const auto in = inputs_from_args({"--dataset", "a.csv", "--write-bands", "b.yaml", "--serving=c.csv", "--out=d",
                                    "pos", "--output-dir", "dir"});
  const std::vector<NamedInput> want = {{"--dataset", "a.csv"}, {"--serving", "c.csv"}, {"argument", "pos"}};
  EXPECT_EQ(in, want);
}

TEST(Text, ValidUtf8ReplacesEveryBadByte) {
  EXPECT_EQ(valid_utf8("abc"), "abc");
  EXPECT_EQ(valid_utf8("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(valid_utf8("\xFF"), "\xEF\xBF\xBD");
  EXPECT_EQ(valid_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");              // overlong
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(valid_utf8("\xF4\x90\x80\x80").substr(0, 3), "\xEF\xBF\xBD");       // past U+10FFFF
  EXPECT_EQ(valid_utf8("a\xE2\x82"), "a\xEF\xBF\xBD\xEF\xBF\xBD");             // truncated
  EXPECT_EQ(valid_utf8("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");
}

}  // namespace
}  // namespace gpuplan
