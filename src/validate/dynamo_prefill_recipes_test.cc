// The prefill side of the Dynamo recipes (data/recipes/dynamo_prefill.yaml): the embedded file, the
// checks on a malformed entry, and the match of a row's deployment to its entry.
#include "validate/dynamo_prefill_recipes.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/error.h"
#include "validate/inferencex_cases.h"

namespace gpuplan {
namespace {

// One well-formed entry; `field: value` lines replace the entry's own (or are added).
std::string prefill_recipe_text(const std::string& replace_key = "", const std::string& replace_line = "") {
  const std::vector<std::pair<std::string, std::string>> fields = {
      {"engine", "engine: sglang"},
      {"gpu", "gpu: B200"},
      {"precision", "precision: fp8"},
      {"isl", "isl: 8192"},
      {"prefill_tp", "prefill_tp: 8"},
      {"prefill_attention_dp", "prefill_attention_dp: true"},
      {"decode_attention_dp", "decode_attention_dp: true"},
      {"mtp", "mtp: any"},
      {"valid_from", "valid_from: 2026-01-28"},
      {"valid_to", "valid_to: 2026-03-11"},
      {"max_batch", "max_batch: 128"},
      {"max_tokens", "max_tokens: 4096"},
      {"source", "source: NVIDIA/srt-slurm"},
      {"commit", "commit: 5063eb432640574bd93410ae2697591a7d15f57c"},
      {"recipe", "recipe: \"b200-fp8/8k1k/stp/max-tpt-dep8-{1p1d,2p1d}.yaml (5063eb43)\""},
  };
  std::string text = "schema: gpuplan.dynamo_prefill_recipes/v1\nrecipes:\n";
  bool first = true, replaced = false;
  for (const auto& [key, line] : fields) {
    const std::string use = key == replace_key ? (replaced = true, replace_line) : line;
    if (use.empty()) continue;  // the field left out
    text += (first ? "  - " : "    ") + use + "\n";
    first = false;
  }
  if (!replaced && !replace_line.empty()) text += "    " + replace_line + "\n";
  return text;
}

TEST(DynamoPrefillRecipes, EmbeddedFileLoadsEveryEntryWithItsSource) {
  const DynamoPrefillRecipes& r = builtin_dynamo_prefill_recipes();
  // One entry per row of the former C++ table (kPrefillRecipes, h19j), and InferenceX's in-tree
  // B200 FP4 MTP recipes of June 2026 (3).
  ASSERT_EQ(r.recipes.size(), 44u);
  size_t sglang = 0, trtllm = 0, configs = 0, in_tree = 0, triton = 0;
  std::set<std::string> commits;
  for (const DynamoPrefillRecipe& k : r.recipes) {
    (k.trtllm ? trtllm : sglang) += 1;
    if (k.fp8_gemm_triton) {
      // SGLang's Triton block-FP8 kernel: Blackwell FP8 recipes of 5063eb43 whose prefill environment
      // disables JIT DeepGEMM without enabling FlashInfer's FP8 GEMM (B200's six, GB200's two
      // low-latency ones).
      ++triton;
      EXPECT_FALSE(k.trtllm) << k.recipe;
      EXPECT_FALSE(k.fp4) << k.recipe;
      EXPECT_TRUE(k.gpu == "B200" || k.gpu == "GB200") << k.recipe;
      EXPECT_EQ(k.commit.substr(0, 8), "5063eb43") << k.recipe;
    }
    if (k.source == "NVIDIA/srt-slurm") {
      EXPECT_EQ(k.commit.size(), 40u) << k.recipe;  // a recipe body is read at a commit
      commits.insert(k.commit.substr(0, 8));
    } else {
      EXPECT_EQ(k.source, "SemiAnalysisAI/InferenceX") << k.recipe;
      // A config's own settings (Dec 2025), or a recipe file of InferenceX's tree read at its commit.
      if (k.recipe.rfind("InferenceX config", 0) == 0)
        ++configs;
      else {
        EXPECT_EQ(k.recipe.rfind("benchmarks/multi_node/srt-slurm-recipes/", 0), 0u) << k.recipe;
        EXPECT_EQ(k.commit.size(), 40u) << k.recipe;
        ++in_tree;
      }
    }
    EXPECT_LE(k.valid_from, k.valid_to) << k.recipe;
  }
  EXPECT_EQ(sglang, 26u);
  EXPECT_EQ(trtllm, 18u);
  EXPECT_EQ(configs, 2u);
  EXPECT_EQ(in_tree, 3u);
  EXPECT_EQ(triton, 8u);
  EXPECT_EQ(commits, (std::set<std::string>{"5063eb43", "4a22a181", "9fe6c373", "535b2dc7"}));
}

TEST(DynamoPrefillRecipes, ReadsOneEntry) {
  const DynamoPrefillRecipes r = parse_dynamo_prefill_recipes(prefill_recipe_text(), "t.yaml");
  ASSERT_EQ(r.recipes.size(), 1u);
  const DynamoPrefillRecipe& k = r.recipes.front();
  EXPECT_FALSE(k.trtllm);
  EXPECT_EQ(k.gpu, "B200");
  EXPECT_FALSE(k.fp4);
  EXPECT_EQ(k.isl, 8192);
  EXPECT_EQ(k.prefill_tp, 8);
  EXPECT_TRUE(k.prefill_attention_dp);
  EXPECT_EQ(k.decode_attention_dp, 1);
  EXPECT_EQ(k.mtp, -1);
  EXPECT_EQ(k.valid_from, "2026-01-28");
  EXPECT_EQ(k.valid_to, "2026-03-11");
  EXPECT_EQ(k.max_batch, 128);
  EXPECT_EQ(k.max_tokens, 4096);
  EXPECT_EQ(k.commit, "5063eb432640574bd93410ae2697591a7d15f57c");
  EXPECT_FALSE(k.fp8_gemm_triton);  // absent: the engine's default kernels
  EXPECT_TRUE(parse_dynamo_prefill_recipes(prefill_recipe_text("", "fp8_gemm: triton"), "t.yaml")
                  .recipes.front()
                  .fp8_gemm_triton);
  EXPECT_FALSE(
      parse_dynamo_prefill_recipes(prefill_recipe_text("", "fp8_gemm: auto"), "t.yaml").recipes.front().fp8_gemm_triton);
  // The commit may be left out (a config whose commit is not stored).
  EXPECT_TRUE(parse_dynamo_prefill_recipes(prefill_recipe_text("commit", ""), "t.yaml").recipes.front().commit.empty());
}

// Each malformed field is an InputError naming the field's path and what is allowed, never a crash.
TEST(DynamoPrefillRecipes, BadEntryNamesTheFieldAndTheAllowedValues) {
  struct Bad {
    const char* key;
    const char* line;
    const char* says;
  };
  const Bad bad[] = {
      {"engine", "engine: vllm", "must be sglang or trtllm"},
      {"engine", "", "is required"},
      {"gpu", "gpu: \"\"", "must name"},
      {"precision", "precision: bf16", "must be fp4 or fp8"},
      {"isl", "isl: 0", "between 1 and 10000000"},
      {"isl", "isl: 1.5", "whole number"},
      {"prefill_tp", "prefill_tp: 5000", "between 1 and 4096"},
      {"prefill_attention_dp", "prefill_attention_dp: maybe", "true or false"},
      {"decode_attention_dp", "decode_attention_dp: sometimes", "true, false or any"},
      {"mtp", "mtp: 2", "true, false or any"},
      {"valid_from", "valid_from: 2026-1-28", "YYYY-MM-DD"},
      {"valid_to", "valid_to: 2026-01-01", "must not be before valid_from"},
      {"max_batch", "max_batch: 0", "between 1 and 1000000"},
      {"max_tokens", "max_tokens: 99999999", "between 1 and 16777216"},
      {"max_tokens", "max_tokens: many", "expected a number"},
      {"source", "source: srt-slurm", "owner/name"},
      {"commit", "commit: 5063eb43", "40 hex digits"},
      {"recipe", "", "is required"},
      {"fp8_gemm", "fp8_gemm: deepgemm", "must be auto or triton"},
  };
  for (const Bad& b : bad) {
    try {
      parse_dynamo_prefill_recipes(prefill_recipe_text(b.key, b.line), "t.yaml");
      ADD_FAILURE() << b.key << " '" << b.line << "' was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("recipes[0].") + b.key), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(b.says), std::string::npos) << e.what();
    }
  }
  // FP4 weights run no block-FP8 GEMMs: a Triton kernel there is an error naming the key.
  try {
    parse_dynamo_prefill_recipes(prefill_recipe_text("precision", "precision: fp4\n    fp8_gemm: triton"), "t.yaml");
    ADD_FAILURE() << "fp8_gemm: triton accepted on an fp4 entry";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("recipes[0].fp8_gemm"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("triton applies to fp8 entries"), std::string::npos) << e.what();
  }
  // An unknown (misspelt) key names itself; a wrong schema and an empty list are errors too.
  try {
    parse_dynamo_prefill_recipes(prefill_recipe_text("", "max_batchs: 4"), "t.yaml");
    ADD_FAILURE() << "unknown key accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("recipes[0].max_batchs"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_dynamo_prefill_recipes("schema: gpuplan.dynamo_decode_recipes/v1\nrecipes: []\n", "t.yaml"),
               InputError);
  EXPECT_THROW(parse_dynamo_prefill_recipes("schema: gpuplan.dynamo_prefill_recipes/v1\nrecipes: []\n", "t.yaml"),
               InputError);
  EXPECT_THROW(parse_dynamo_prefill_recipes("schema: [", "t.yaml"), InputError);
}

// Two entries that would match one row are refused, naming both; dates or keys that tell them apart
// are accepted.
TEST(DynamoPrefillRecipes, OverlappingEntriesAreRefused) {
  const std::string one = prefill_recipe_text();
  const std::string entry = one.substr(one.find("  - "));
  try {
    parse_dynamo_prefill_recipes(one + entry, "t.yaml");
    ADD_FAILURE() << "a duplicate entry was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("recipes[1]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("recipes[0]"), std::string::npos) << e.what();
  }
  auto with = [&](const std::string& from, const std::string& to) {
    std::string e = entry;
    e.replace(e.find(from), from.size(), to);
    return one + e;
  };
  EXPECT_EQ(parse_dynamo_prefill_recipes(with("valid_from: 2026-01-28\n    valid_to: 2026-03-11",
                                              "valid_from: 2026-03-12\n    valid_to: 2026-03-22"),
                                         "t.yaml")
                .recipes.size(),
            2u);
  EXPECT_EQ(parse_dynamo_prefill_recipes(with("decode_attention_dp: true", "decode_attention_dp: false"), "t.yaml")
                .recipes.size(),
            2u);
  // "any" meets both values: refused.
  EXPECT_THROW(parse_dynamo_prefill_recipes(with("decode_attention_dp: true", "decode_attention_dp: any"), "t.yaml"),
               InputError);
  // A one-day overlap of the dates is refused.
  EXPECT_THROW(parse_dynamo_prefill_recipes(with("valid_from: 2026-01-28", "valid_from: 2026-03-11"), "t.yaml"),
               InputError);
}

TEST(DynamoPrefillRecipes, MatchesEveryKeyWithinTheDates) {
  const DynamoPrefillRecipes r = parse_dynamo_prefill_recipes(prefill_recipe_text(), "t.yaml");
  DynamoPrefillQuery q;
  q.gpu = "B200";
  q.isl = 8192;
  q.prefill_tp = 8;
  q.prefill_attention_dp = true;
  q.decode_attention_dp = true;
  q.date = "2026-01-28";
  ASSERT_NE(match_dynamo_prefill_recipe(r, q), nullptr);
  q.mtp = true;  // mtp: any
  EXPECT_NE(match_dynamo_prefill_recipe(r, q), nullptr);
  q.date = "2026-03-11";  // inclusive
  EXPECT_NE(match_dynamo_prefill_recipe(r, q), nullptr);
  auto miss = [&](auto change) {
    DynamoPrefillQuery m = q;
    change(m);
    return match_dynamo_prefill_recipe(r, m) == nullptr;
  };
  EXPECT_TRUE(miss([](DynamoPrefillQuery& m) { m.date = "2026-03-12"; }));
  EXPECT_TRUE(miss([](DynamoPrefillQuery& m) { m.date = "2026-01-27"; }));
  EXPECT_TRUE(miss([](DynamoPrefillQuery& m) { m.date = "2026-3-1"; }));
  EXPECT_TRUE(miss([](DynamoPrefillQuery& m) { m.date = ""; }));
  EXPECT_TRUE(miss([](DynamoPrefillQuery& m) { m.trtllm = true; }));
  EXPECT_TRUE(miss([](DynamoPrefillQuery& m) { m.gpu = "b200"; }));
  EXPECT_TRUE(miss([](DynamoPrefillQuery& m) { m.fp4 = true; }));
  EXPECT_TRUE(miss([](DynamoPrefillQuery& m) { m.isl = 1024; }));
  EXPECT_TRUE(miss([](DynamoPrefillQuery& m) { m.prefill_tp = 4; }));
  EXPECT_TRUE(miss([](DynamoPrefillQuery& m) { m.prefill_attention_dp = false; }));
  EXPECT_TRUE(miss([](DynamoPrefillQuery& m) { m.decode_attention_dp = false; }));
}

// inferencex_prefill_limits reads the embedded file: the recipe text of the entry it matched, the
// SGLang limits as stated, the TensorRT-LLM context step from the entry's max_batch_size and
// max_num_tokens.
TEST(DynamoPrefillRecipes, InferenceXLimitsComeFromTheFile) {
  const auto sglang = inferencex_prefill_limits("Dynamo + SGLang", "B200", "FP8", 8192, 7373, 8, true, false, true,
                                                "2026-03-18");
  ASSERT_TRUE(sglang.found);
  const DynamoPrefillRecipe* e = nullptr;
  for (const auto& k : builtin_dynamo_prefill_recipes().recipes)
    if (sglang.recipe == "NVIDIA/srt-slurm recipes/" + k.recipe) e = &k;
  ASSERT_NE(e, nullptr) << sglang.recipe;
  EXPECT_EQ(e->commit.substr(0, 8), "9fe6c373");
  EXPECT_EQ(sglang.max_batch, e->max_batch);
  EXPECT_EQ(sglang.max_tokens, e->max_tokens);
  const auto trt = inferencex_prefill_limits("Dynamo + TensorRT-LLM", "GB200", "NVFP4", 1024, 922, 4, true, true, false,
                                             "2025-12-20");
  ASSERT_TRUE(trt.found);
  EXPECT_EQ(trt.recipe.rfind("InferenceX config of 2025-12-19", 0), 0u) << trt.recipe;
  EXPECT_EQ(trt.max_batch, 0);             // the context slot is not held through the transfer
  EXPECT_EQ(trt.max_tokens, 4 * 922);      // PREFILL_MAX_BATCH_SIZE=4 within 4608 tokens
}

}  // namespace
}  // namespace gpuplan
