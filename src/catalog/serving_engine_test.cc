// Serving engines in the catalog (data/catalog/serving_engines.yaml): matching, overlays, bad input.
#include <gtest/gtest.h>

#include <string>

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
  EXPECT_EQ(matched(c, "vLLM"), "vllm");  // its entry: front end and MoE GEMM share fitted on AIConfigurator's file
  EXPECT_LT(c.find_serving_engine("vllm 0.19.0")->moe_gemm_eff, 0.8);
  EXPECT_GT(c.find_serving_engine("vllm 0.19.0")->request_overhead_s, 0.0);
  EXPECT_DOUBLE_EQ(c.find_serving_engine("sglang 0.5.9")->moe_gemm_eff, 1.0);  // not kept (its pools reject it)
  EXPECT_DOUBLE_EQ(c.find_serving_engine("trtllm")->moe_gemm_eff, 1.0);        // the reference
  EXPECT_EQ(matched(c, "default"), "");  // the default entry answers to no framework
  // Scheduler facts: SGLang and ATOM run prompts in forwards of their own; inflight batching engines
  // ride them in the decodes' forward. `infer --engine` and validation read the same entry.
  EXPECT_TRUE(c.find_serving_engine("SGLang")->prefill_separate);
  EXPECT_TRUE(c.find_serving_engine("ATOM")->prefill_separate);
  EXPECT_FALSE(c.find_serving_engine("TensorRT-LLM")->prefill_separate);
  EXPECT_FALSE(c.find_serving_engine("vLLM")->prefill_separate);
  EXPECT_NE(serving_engines_to_yaml(c.serving_engines(), "h").find("prefill_separate: true"), std::string::npos);
  // KV admission: vLLM and the SGLang worker admit by current length; TensorRT-LLM reserves the whole
  // sequence (GUARANTEED_NO_EVICT, its default).
  EXPECT_EQ(c.find_serving_engine("vLLM")->kv_admission, "current_length");
  EXPECT_EQ(c.find_serving_engine("Dynamo + SGLang")->kv_admission, "current_length");
  EXPECT_EQ(c.find_serving_engine("SGLang")->kv_admission, "current_length");
  EXPECT_NE(c.find_serving_engine("TensorRT-LLM")->kv_admission, "current_length");
  EXPECT_NE(serving_engines_to_yaml(c.serving_engines(), "h").find("kv_admission: current_length"), std::string::npos);
  // KV pool: vLLM's gpu_memory_utilization is a share of the whole memory; the others unstated (free_share).
  EXPECT_EQ(c.find_serving_engine("vLLM")->kv_pool, "whole_share");
  EXPECT_EQ(c.find_serving_engine("SGLang")->kv_pool, "");
  EXPECT_EQ(c.find_serving_engine("TensorRT-LLM")->kv_pool, "");
  EXPECT_NE(serving_engines_to_yaml(c.serving_engines(), "h").find("kv_pool: whole_share"), std::string::npos);
  // Sliding windows' KV: TensorRT-LLM's pool (and Dynamo's TensorRT-LLM workers') charges the whole context.
  EXPECT_EQ(c.find_serving_engine("TensorRT-LLM")->window_kv, "whole_context");
  EXPECT_EQ(c.find_serving_engine("TensorRT-LLM PyTorch")->window_kv, "whole_context");
  EXPECT_EQ(c.find_serving_engine("Dynamo + TensorRT-LLM")->window_kv, "whole_context");
  EXPECT_EQ(c.find_serving_engine("vLLM")->window_kv, "");
  EXPECT_NE(serving_engines_to_yaml(c.serving_engines(), "h").find("window_kv: whole_context"), std::string::npos);
  // Attention-DP layouts: no built-in entry states them (every engine read with the dense layers split and
  // the tokens exchanged all-to-all, the fits' layout); an overlay states them, kept and written back.
  for (const auto& e : c.serving_engines()) {
    EXPECT_EQ(e.attention_dp_dense, "") << e.name;
    EXPECT_EQ(e.attention_dp_moe_exchange, "") << e.name;
  }
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
  EXPECT_EQ(c.find_serving_engine("SGLang")->kv_admission, "current_length");  // the built-in's, unstated
  c.merge_yaml("serving_engines:\n  - name: vllm\n    request_overhead_s: 0.03\n", "overlay.yaml");
  EXPECT_EQ(c.find_serving_engine("vLLM")->kv_pool, "whole_share");  // the built-in's, unstated
  c.merge_yaml("serving_engines:\n  - name: tensorrt-llm\n    attention_dp_dense: replicated\n"
               "    attention_dp_moe_exchange: all_gather_unless_mnnvl\n", "overlay.yaml");
  EXPECT_EQ(c.find_serving_engine("TensorRT-LLM")->attention_dp_dense, "replicated");
  EXPECT_GT(c.find_serving_engine("TensorRT-LLM")->request_overhead_s, 0.0);  // the built-in's front end, unstated
  c.merge_yaml("serving_engines:\n  - name: tensorrt-llm\n    request_overhead_s: 0.09\n", "overlay.yaml");
  EXPECT_EQ(c.find_serving_engine("TensorRT-LLM")->window_kv, "whole_context");  // the built-in's, unstated
  EXPECT_EQ(c.find_serving_engine("TensorRT-LLM")->attention_dp_moe_exchange, "all_gather_unless_mnnvl");  // kept
  const std::string written = serving_engines_to_yaml(c.serving_engines(), "h");
  EXPECT_NE(written.find("attention_dp_dense: replicated"), std::string::npos);
  EXPECT_NE(written.find("attention_dp_moe_exchange: all_gather_unless_mnnvl"), std::string::npos);
  EXPECT_EQ(matched(c, "Dynamo + SGLang"), "dynamo+sglang");  // still tried first
  c.merge_yaml("serving_engines:\n  - name: vllm\n    match: [\"vllm\"]\n    request_overhead_s: 0.07\n    mtp_accept: 0.6\n",
               "overlay.yaml");
  c.check();
  EXPECT_EQ(matched(c, "vLLM 0.11"), "vllm");
}

// The vendors an engine runs on: stated for the built-in engines, written back by the YAML writer, kept by
// an overlay that restates only a figure, and an empty one is an error naming the field.
TEST(ServingEngines, VendorsAreReadWrittenAndKept) {
  Catalog c = Catalog::builtin();
  EXPECT_EQ(c.find_serving_engine("TensorRT-LLM")->vendors, std::vector<std::string>{"NVIDIA"});
  EXPECT_EQ(c.find_serving_engine("ATOM")->vendors, std::vector<std::string>{"AMD"});
  EXPECT_TRUE(c.default_serving_engine().vendors.empty());  // any
  EXPECT_NE(serving_engines_to_yaml(c.serving_engines(), "h").find("vendors: [NVIDIA, AMD]"), std::string::npos);
  c.merge_yaml("serving_engines:\n  - name: tensorrt-llm\n    request_overhead_s: 0.1\n", "overlay.yaml");
  EXPECT_EQ(c.find_serving_engine("TensorRT-LLM")->vendors, std::vector<std::string>{"NVIDIA"});
  try {
    c.merge_yaml("serving_engines:\n  - name: vllm\n    vendors: [\"\"]\n", "bad.yaml");
    FAIL() << "accepted an empty vendor";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("vendors[0]"), std::string::npos) << e.what();
  }
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
  try {
    c.merge_yaml("serving_engines:\n  - name: vllm\n    kv_admission: max_utilization\n", "bad.yaml");
    FAIL() << "accepted kv_admission max_utilization";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("kv_admission"), std::string::npos) << e.what();
  }
  try {
    c.merge_yaml("serving_engines:\n  - name: vllm\n    kv_pool: gpu_memory_utilization\n", "bad.yaml");
    FAIL() << "accepted kv_pool gpu_memory_utilization";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("kv_pool"), std::string::npos) << e.what();
  }
  for (const char* field : {"attention_dp_dense", "attention_dp_moe_exchange", "window_kv"}) {
    try {
      c.merge_yaml(std::string("serving_engines:\n  - name: vllm\n    ") + field + ": sharded\n", "bad.yaml");
      FAIL() << "accepted " << field << " sharded";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  }
  for (const char* field : {"mtp_host_step_s", "mtp_host_per_seq_step_s", "mtp_eager_draft_extend_s"}) {
    try {
      c.merge_yaml(std::string("serving_engines:\n  - name: sglang\n    ") + field + ": 0.5\n", "bad.yaml");
      FAIL() << "accepted " << field << " 0.5 s";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  }
  try {
    c.merge_yaml("serving_engines:\n  - name: vllm\n    moe_gemm_eff: 0\n", "bad.yaml");
    FAIL() << "accepted moe_gemm_eff 0";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("moe_gemm_eff"), std::string::npos) << e.what();
  }
  Catalog d = Catalog::builtin();
  d.merge_yaml("serving_engines:\n  - name: newengine\n    request_overhead_s: 0.1\n", "bad.yaml");
  try {
    d.check();
    FAIL() << "accepted an engine that answers to no framework";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("match"), std::string::npos) << e.what();
  }
}

// A framework string's release, as engines number theirs; none where it states no version.
TEST(ServingEngines, TheFrameworkStatesItsRelease) {
  EXPECT_EQ(framework_release("TensorRT-LLM v1.0 (PyTorch backend)"), "1.0");
  EXPECT_EQ(framework_release("TensorRT-LLM v0.20 (PyTorch backend)"), "0.20");
  EXPECT_EQ(framework_release("TensorRT-LLM 1.x (PyTorch backend)"), "1.x");
  EXPECT_EQ(framework_release("vllm 0.19.0"), "0.19.0");
  EXPECT_EQ(framework_release("TensorRT 10.2.0, CUDA 12.4"), "10.2.0");
  EXPECT_EQ(framework_release("SGLang"), "");
  EXPECT_EQ(framework_release("Dynamo + TensorRT-LLM"), "");
}

// The releases an entry tells apart: read, written back, kept by an overlay that restates other figures,
// and refused where they contradict themselves.
TEST(ServingEngines, ReleasesAreReadWrittenAndKept) {
  Catalog c = Catalog::builtin();
  const ServingEngine* pt = c.find_serving_engine("TensorRT-LLM v1.0 (PyTorch backend)");
  ASSERT_TRUE(pt);
  EXPECT_EQ(pt->newest_release, "1.x");
  const EngineRelease* r = find_engine_release(*pt, "1.0");
  ASSERT_TRUE(r);
  EXPECT_GT(r->moe_kernel_share, 0.05);
  EXPECT_LT(r->moe_kernel_share, 1.0);
  EXPECT_EQ(find_engine_release(*pt, "1.x"), nullptr);  // the newest: the entry's own figures
  EXPECT_NE(serving_engines_to_yaml(c.serving_engines(), "h").find("newest_release: \"1.x\""), std::string::npos);
  c.merge_yaml("serving_engines:\n  - name: tensorrt-llm-pytorch\n    host_per_seq_step_s: 4e-05\n", "overlay.yaml");
  ASSERT_TRUE(find_engine_release(*c.find_serving_engine("trtllm pytorch"), "1.0"));
  c.merge_yaml("serving_engines:\n  - name: tensorrt-llm-pytorch\n    newest_release: \"2.0\"\n    releases:\n"
               "      - release: \"1.x\"\n        moe_kernel_share: 0.9\n",
               "overlay.yaml");
  EXPECT_DOUBLE_EQ(find_engine_release(*c.find_serving_engine("trtllm pytorch"), "1.x")->moe_kernel_share, 0.9);
  for (const char* bad : {"    releases:\n      - release: \"1.0\"\n",  // no newest_release
                          "    newest_release: \"1.x\"\n    releases:\n      - release: \"1.x\"\n",
                          "    newest_release: \"1.x\"\n    releases:\n      - release: \"1.0\"\n        "
                          "moe_kernel_share: 0\n"}) {
    try {
      Catalog d = Catalog::builtin();
      d.merge_yaml(std::string("serving_engines:\n  - name: vllm\n") + bad, "bad.yaml");
      FAIL() << "accepted " << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("release"), std::string::npos) << e.what();
    }
  }
}

// An engine sharing another's front end (front_end_of) has no figure of its own: it follows the named
// engine's, in the built-in catalog, after an overlay refits that engine, and in what calibrate writes.
TEST(ServingEngines, FrontEndOfFollowsTheNamedEngine) {
  Catalog c = Catalog::builtin();
  const ServingEngine* pytorch = c.find_serving_engine("TensorRT-LLM PyTorch");
  const ServingEngine* cpp = c.find_serving_engine("TensorRT-LLM");
  ASSERT_TRUE(pytorch && cpp);
  EXPECT_EQ(pytorch->name, "tensorrt-llm-pytorch");
  EXPECT_EQ(pytorch->front_end_of, "tensorrt-llm");
  EXPECT_GT(cpp->request_overhead_s, 0.0);
  EXPECT_DOUBLE_EQ(pytorch->request_overhead_s, cpp->request_overhead_s);
  c.merge_yaml("serving_engines:\n  - name: tensorrt-llm\n    request_overhead_s: 0.25\n", "overlay.yaml");
  c.check();
  EXPECT_DOUBLE_EQ(c.find_serving_engine("TensorRT-LLM PyTorch")->request_overhead_s, 0.25);
  // An overlay restating only the host work keeps the shared front end.
  c.merge_yaml("serving_engines:\n  - name: tensorrt-llm-pytorch\n    host_per_seq_step_s: 20e-6\n", "overlay.yaml");
  EXPECT_EQ(c.find_serving_engine("TensorRT-LLM PyTorch")->front_end_of, "tensorrt-llm");
  EXPECT_DOUBLE_EQ(c.find_serving_engine("TensorRT-LLM PyTorch")->request_overhead_s, 0.25);
  // One figure in the YAML calibrate writes, and it reads back the same.
  const std::string yaml = serving_engines_to_yaml(c.serving_engines(), "test");
  EXPECT_NE(yaml.find("front_end_of: tensorrt-llm"), std::string::npos) << yaml;
  Catalog d = Catalog::builtin();
  d.merge_yaml(yaml, "written.yaml");
  d.check();
  EXPECT_DOUBLE_EQ(d.find_serving_engine("TensorRT-LLM PyTorch")->request_overhead_s, 0.25);
  // The SGLang worker's MTP host work reads back the same too.
  const ServingEngine* sg = c.find_serving_engine("SGLang");
  ASSERT_NE(sg, nullptr);
  EXPECT_GT(sg->mtp_host_step_s + sg->mtp_host_per_seq_step_s + sg->mtp_eager_draft_extend_s, 0.0);
  EXPECT_NEAR(d.find_serving_engine("SGLang")->mtp_host_step_s, sg->mtp_host_step_s, 1e-9);
  EXPECT_NEAR(d.find_serving_engine("SGLang")->mtp_host_per_seq_step_s, sg->mtp_host_per_seq_step_s, 1e-9);
  EXPECT_NEAR(d.find_serving_engine("SGLang")->mtp_eager_draft_extend_s, sg->mtp_eager_draft_extend_s, 1e-9);
}

TEST(ServingEngines, FrontEndOfUnknownSelfChainOrBothIsAnErrorNamingTheField) {
  const auto error_of = [](const std::string& yaml) -> std::string {
    Catalog c = Catalog::builtin();
    const auto before = c.serving_engines().size();
    try {
      c.merge_yaml(yaml, "bad.yaml");
    } catch (const InputError& e) {
      EXPECT_EQ(c.serving_engines().size(), before) << "a bad entry changed the catalog";
      EXPECT_DOUBLE_EQ(c.find_serving_engine("TensorRT-LLM PyTorch")->request_overhead_s,
                       c.find_serving_engine("TensorRT-LLM")->request_overhead_s);
      return e.what();
    }
    ADD_FAILURE() << "accepted: " << yaml;
    return "";
  };
  const std::string unknown = error_of("serving_engines:\n  - name: vllm\n    match: [\"vllm\"]\n    front_end_of: nosuch\n");
  EXPECT_NE(unknown.find("serving_engines.vllm.front_end_of"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("nosuch"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("tensorrt-llm"), std::string::npos) << unknown << ": lists the engines it could name";
  const std::string chain =
      error_of("serving_engines:\n  - name: vllm\n    match: [\"vllm\"]\n    front_end_of: tensorrt-llm-pytorch\n");
  EXPECT_NE(chain.find("front_end_of"), std::string::npos) << chain;
  EXPECT_NE(chain.find("chain"), std::string::npos) << chain;
  const std::string self = error_of("serving_engines:\n  - name: vllm\n    match: [\"vllm\"]\n    front_end_of: vllm\n");
  EXPECT_NE(self.find("itself"), std::string::npos) << self;
  const std::string both = error_of(
      "serving_engines:\n  - name: vllm\n    match: [\"vllm\"]\n    front_end_of: sglang\n    request_overhead_s: 0.1\n");
  EXPECT_NE(both.find("front_end_of"), std::string::npos) << both;
  EXPECT_NE(both.find("not both"), std::string::npos) << both;
  // Making the named engine itself a sharer breaks the chain rule too.
  const std::string owner =
      error_of("serving_engines:\n  - name: tensorrt-llm\n    front_end_of: sglang\n");
  EXPECT_NE(owner.find("tensorrt-llm-pytorch.front_end_of"), std::string::npos) << owner;
}

}  // namespace
}  // namespace gpuplan
