// The serving sources' conventions (data/serving/source_conventions.yaml): every family has its
// reason and its source, names real generations and precisions, and a malformed file is an error
// naming the field.
#include "validate/source_conventions.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "catalog/catalog.h"
#include "core/error.h"

namespace gpuplan {
namespace {

const std::string kHead = "schema: gpuplan.source_conventions/v1\nsources:\n";
const std::string kOther =
    "  - family: other\n    source_id_prefixes: []\n    blank_weights: FP8\n    why: w\n    source: s\n";

// The InputError's text for a document, or "" when it parses.
std::string error_of(const std::string& doc) {
  try {
    parse_source_conventions(doc, "t.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(SourceConventions, EveryFamilyHasASourceAndAReason) {
  const auto& all = source_conventions();
  ASSERT_GE(all.size(), 3u);
  for (const auto& s : all) {
    EXPECT_FALSE(s.source.empty()) << s.family;
    EXPECT_FALSE(s.why.empty()) << s.family;
    if (s.closed_loop_client) {
      EXPECT_FALSE(s.closed_loop_client->name.empty()) << s.family;
    }
  }
  EXPECT_TRUE(all.back().source_id_prefixes.empty());
}

TEST(SourceConventions, GenerationsAreTheCatalogs) {
  const Catalog catalog = Catalog::load({});
  std::set<std::string> generations;
  for (const auto& a : catalog.accelerators()) generations.insert(a.generation);
  for (const auto& s : source_conventions())
    for (const auto& [g, p] : s.blank_weights_by_generation)
      EXPECT_TRUE(generations.count(g)) << s.family << ": generation '" << g << "' is no catalog accelerator's";
}

TEST(SourceConventions, ARowsSourceIdNamesItsFamily) {
  const SourceConvention& aic = source_convention("AIC-silicon-sample");
  EXPECT_EQ(aic.family, "AIConfigurator");
  EXPECT_EQ(aic.blank_weights_on("blackwell"), "BF16");
  ASSERT_TRUE(aic.closed_loop_client);
  EXPECT_EQ(aic.closed_loop_client->requests_per_client, 10);
  EXPECT_DOUBLE_EQ(aic.closed_loop_client->mean_length_fraction(), 0.9);
  EXPECT_FALSE(aic.mlperf_benchmarks);
  const SourceConvention& mlperf = source_convention("mlperf-v5.0");  // case-insensitive
  EXPECT_TRUE(mlperf.mlperf_benchmarks);
  EXPECT_EQ(mlperf.blank_weights_on("blackwell"), "FP4");
  EXPECT_EQ(mlperf.blank_weights_on("ampere"), "BF16");
  EXPECT_EQ(mlperf.blank_weights_on("hopper"), "FP8");
  EXPECT_EQ(mlperf.blank_weights_on("cdna3"), "FP8");
  EXPECT_EQ(mlperf.blank_weights_on("cdna4"), "FP4");  // MI355X's submissions: MXFP4 checkpoints
  EXPECT_FALSE(mlperf.closed_loop_client);
  const SourceConvention& other = source_convention("TRTLLM-perf-overview-v1.0");
  EXPECT_TRUE(other.source_id_prefixes.empty());
  EXPECT_FALSE(other.mlperf_benchmarks);
  EXPECT_FALSE(other.closed_loop_client);
}

TEST(SourceConventions, AMalformedFileNamesTheField) {
  EXPECT_EQ(error_of(kHead + kOther), "");
  // No source.
  std::string e = error_of(kHead + "  - family: other\n    source_id_prefixes: []\n    blank_weights: FP8\n    why: w\n");
  EXPECT_NE(e.find("sources[0].source"), std::string::npos) << e;
  // An empty source.
  e = error_of(kHead + "  - family: other\n    source_id_prefixes: []\n    blank_weights: FP8\n    why: w\n"
                       "    source: \"\"\n");
  EXPECT_NE(e.find("sources[0].source"), std::string::npos) << e;
  // A precision the serving model does not run.
  e = error_of(kHead + "  - family: other\n    source_id_prefixes: []\n    blank_weights: INT3\n    why: w\n"
                       "    source: s\n");
  EXPECT_NE(e.find("sources[0].blank_weights"), std::string::npos) << e;
  EXPECT_NE(e.find("INT3"), std::string::npos) << e;
  e = error_of(kHead + "  - family: other\n    source_id_prefixes: []\n    blank_weights: FP8\n"
                       "    blank_weights_by_generation: {hopper: FP7}\n    why: w\n    source: s\n");
  EXPECT_NE(e.find("blank_weights_by_generation.hopper"), std::string::npos) << e;
  // A misspelt key, with the client's fields checked too.
  e = error_of(kHead + "  - family: a\n    source_id_prefixes: [A]\n    blank_weights: FP8\n    why: w\n"
                       "    source: s\n    closed_loop_client: {name: X, requests_per_client: 0, random_range_ratio: 0.8}\n" +
               kOther);
  EXPECT_NE(e.find("closed_loop_client.requests_per_client"), std::string::npos) << e;
  e = error_of(kHead + "  - family: a\n    source_id_prefixes: [A]\n    blank_weight: FP8\n    why: w\n    source: s\n" +
               kOther);
  EXPECT_NE(e.find("blank_weight"), std::string::npos) << e;
  // The catch-all entry missing, or not last; a family twice.
  e = error_of(kHead + "  - family: a\n    source_id_prefixes: [A]\n    blank_weights: FP8\n    why: w\n    source: s\n");
  EXPECT_NE(e.find("source_id_prefixes"), std::string::npos) << e;
  e = error_of(kHead + kOther + "  - family: a\n    source_id_prefixes: []\n    blank_weights: FP8\n    why: w\n"
                                "    source: s\n");
  EXPECT_NE(e.find("sources[0].source_id_prefixes"), std::string::npos) << e;
  e = error_of(kHead + "  - family: Other\n    source_id_prefixes: [O]\n    blank_weights: FP8\n    why: w\n"
                       "    source: s\n" + kOther);
  EXPECT_NE(e.find("sources[1].family"), std::string::npos) << e;
  // The wrong schema.
  e = error_of("schema: gpuplan.other/v1\nsources: []\n");
  EXPECT_NE(e.find("schema"), std::string::npos) << e;
}

}  // namespace
}  // namespace gpuplan
