// Serving engines in the catalog (data/catalog/serving_engines.yaml): matching, overlays, bad input.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "core/error.h"

namespace gpuplan {
namespace {

std::string matched(const Catalog& c, const std::string& framework) {
  const ServingEngine* e = c.find_serving_engine(framework);
  return e ? e->name : "";
}

TEST(ServingEngines, BuiltInMatchesTheInferenceXFrameworksMostSpecificFirst) {
  const Catalog c = Catalog::builtin();
  EXPECT_EQ(matched(c, "Dynamo + TensorRT-LLM"), "dynamo+tensorrt-llm");
  EXPECT_EQ(matched(c, "dynamo+trtllm"), "dynamo+tensorrt-llm");
  EXPECT_EQ(matched(c, "Dynamo + SGLang"), "dynamo+sglang");
  EXPECT_EQ(matched(c, "SGLang + MoRI (disaggregated)"), "sglang+mori");
  EXPECT_EQ(matched(c, "SGLang"), "sglang");
  EXPECT_EQ(matched(c, "TRT-LLM"), "tensorrt-llm");
  EXPECT_EQ(matched(c, "ATOM"), "atom");
  EXPECT_EQ(matched(c, "vLLM"), "");
  EXPECT_EQ(matched(c, "default"), "");  // the default entry answers to no framework
  const ServingEngine& d = c.default_serving_engine();
  ASSERT_TRUE(d.mtp_accept.has_value());
  EXPECT_GT(*d.mtp_accept, 0.3);
  EXPECT_LT(*d.mtp_accept, 0.95);
  for (const auto& e : c.serving_engines()) {
    EXPECT_GE(e.request_overhead_s, 0.0) << e.name;
    EXPECT_LT(e.request_overhead_s, 1.0) << e.name;  // a front end, not a queue
    EXPECT_FALSE(e.fitted_on.empty()) << e.name << ": every figure carries its source";
  }
}

TEST(ServingEngines, OverlayRestatesAFigureAndKeepsTheMatchAndOrder) {
  Catalog c = Catalog::builtin();
  const size_t n = c.serving_engines().size();
  c.merge_yaml("serving_engines:\n  - name: sglang\n    request_overhead_s: 0.25\n", "overlay.yaml");
  c.check();
  EXPECT_EQ(c.serving_engines().size(), n);
  ASSERT_EQ(matched(c, "SGLang"), "sglang");
  EXPECT_DOUBLE_EQ(c.find_serving_engine("SGLang")->request_overhead_s, 0.25);
  EXPECT_EQ(matched(c, "Dynamo + SGLang"), "dynamo+sglang");  // still tried first
  c.merge_yaml("serving_engines:\n  - name: vllm\n    match: [\"vllm\"]\n    request_overhead_s: 0.07\n    mtp_accept: 0.6\n",
               "overlay.yaml");
  c.check();
  EXPECT_EQ(matched(c, "vLLM 0.11"), "vllm");
}

TEST(ServingEngines, BadInputNamesTheField) {
  Catalog c = Catalog::builtin();
  try {
    c.merge_yaml("serving_engines:\n  - name: default\n    mtp_accept: 1.5\n", "bad.yaml");
    FAIL() << "accepted mtp_accept 1.5";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("mtp_accept"), std::string::npos) << e.what();
  }
  try {
    c.merge_yaml("serving_engines:\n  - name: sglang\n    request_overhead_s: -1\n", "bad.yaml");
    FAIL() << "accepted a negative front end";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("request_overhead_s"), std::string::npos) << e.what();
  }
  EXPECT_THROW(c.merge_yaml("serving_engines:\n  - name: x\n    typo: 1\n", "bad.yaml"), InputError);
  Catalog d = Catalog::builtin();
  d.merge_yaml("serving_engines:\n  - name: newengine\n    request_overhead_s: 0.1\n", "bad.yaml");
  try {
    d.check();
    FAIL() << "accepted an engine that answers to no framework";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("match"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuplan
