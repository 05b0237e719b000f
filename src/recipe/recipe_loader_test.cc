#include "recipe/recipe_loader.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/error.h"
#include "recipe/recipe_catalog.h"

namespace gpuplan {
namespace {

const char* kDecode =
    "schema: gpuplan.dynamo_decode_recipes/v1\n"
    "model: deepseek-r1\nengine: dynamo+tensorrt-llm\nfp4_weights: nvfp4\nsystems: {h200: h200-sxm}\n"
    "source: NVIDIA/srt-slurm\ncommit: abc\nvalid_from: 2026-01-28\nvalid_to: 2026-03-24\n"
    "recipes:\n"
    "  - path: recipes/trtllm/h200-fp8/1k1k/stp/ctx1_gen1_tep8.yaml\n"
    "    gpu: h200\n    precision: fp4\n    isl: 1024\n    osl: 1024\n"
    "    prefill_workers: 1\n    prefill_gpus_per_worker: 8\n    decode_workers: 2\n    decode_gpus_per_worker: 8\n"
    "    decode_attention_dp: true\n    decode_max_batch_size: 64\n    mtp_draft_tokens: 2\n    eplb_slots: 0\n"
    "    concurrencies: [64, 128]\n";

TEST(RecipeLoader, ReadsADeploymentRowWithTheFilesDefaults) {
  const RecipeTable t = load_recipe_table(kDecode, "t.yaml");
  ASSERT_EQ(t.recipes.size(), 1u);
  const Recipe& r = t.recipes[0];
  EXPECT_EQ(r.kind, RecipeKind::deployment);
  EXPECT_EQ(r.model, "deepseek-r1");
  EXPECT_EQ(r.engine, "dynamo+tensorrt-llm");
  EXPECT_EQ(r.system, "h200-sxm");  // the file's systems map
  EXPECT_EQ(r.weights, "nvfp4");
  EXPECT_EQ(r.source, "NVIDIA/srt-slurm");
  EXPECT_EQ(r.commit, "abc");
  EXPECT_EQ(r.valid_to, "2026-03-24");
  EXPECT_EQ(r.decode.workers, 2);
  EXPECT_EQ(r.decode.attention_dp, 1);
  EXPECT_EQ(r.decode.max_batch, 64);
  EXPECT_EQ(r.mtp, 1);
  EXPECT_EQ(r.concurrencies.size(), 2u);
  EXPECT_TRUE(r.evaluable());
  EXPECT_TRUE(r.in_force("2026-02-01"));
  EXPECT_FALSE(r.in_force("2026-04-01"));
  EXPECT_EQ(default_recipe_name(r), "trtllm/h200-fp8/1k1k/stp/ctx1_gen1_tep8");
}

TEST(RecipeLoader, ErrorsNameTheFieldAndTheAllowedValues) {
  std::string bad = kDecode;
  bad.replace(bad.find("precision: fp4"), 14, "precision: fp6");
  try {
    load_recipe_table(bad, "t.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("precision"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("fp4 or fp8"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_recipe_table("schema: gpuplan.other/v1\n", "t.yaml"), InputError);
  EXPECT_THROW(load_recipe_table(std::string(kDecode) + "typo: 1\n", "t.yaml"), InputError);
  std::string fp4 = kDecode;
  fp4.replace(fp4.find("fp4_weights: nvfp4"), 18, "fp4_weights: fp6");
  EXPECT_THROW(load_recipe_table(fp4, "t.yaml"), InputError);
}

TEST(RecipeLoader, ScriptRowsNeedANameAndRefuseOverlaps) {
  const std::string row =
      "  - name: a\n    model: m\n    engine: tensorrt-llm\n    gpu: b200\n    precision: fp8\n    isl: 1024\n"
      "    osl: 1024\n    attention_dp: false\n    batch_wait_iters: 40\n    batch_wait_tokens_ratio: 0.8\n"
      "    valid_from: 2026-01-29\n    source: o/r\n    recipe: s.sh\n";
  const RecipeTable t = load_recipe_table("schema: gpuplan.inferencex_scripts/v1\nscripts:\n" + row, "s.yaml");
  ASSERT_EQ(t.recipes.size(), 1u);
  EXPECT_EQ(t.recipes[0].kind, RecipeKind::script);
  EXPECT_EQ(t.recipes[0].batch_wait_iters, 40);
  EXPECT_EQ(t.recipes[0].decode.attention_dp, 0);
  std::string second = row;
  second.replace(second.find("name: a"), 7, "name: b");
  EXPECT_THROW(load_recipe_table("schema: gpuplan.inferencex_scripts/v1\nscripts:\n" + row + second, "s.yaml"),
               InputError);
  std::string ratio_alone = row;
  ratio_alone.erase(ratio_alone.find("    batch_wait_iters: 40\n"), 25);
  EXPECT_THROW(load_recipe_table("schema: gpuplan.inferencex_scripts/v1\nscripts:\n" + ratio_alone, "s.yaml"),
               InputError);
}

// A script row's SGLang memory share, read with the MTP script it belongs to: the MTP and non-MTP scripts
// of one GPU and precision are two rows; two rows of one script whose dates meet are refused.
TEST(RecipeLoader, ScriptRowsStateSglangMemFractionByMtpScript) {
  const std::string head = "schema: gpuplan.inferencex_scripts/v1\nscripts:\n";
  auto row = [](const char* name, const char* mtp, const char* fraction) {
    return fmt::format("  - {{name: {}, model: m, engine: sglang, gpu: b200, precision: fp8, mtp: {}, "
                       "mem_fraction_static: {}, valid_from: 2026-02-05, source: o/r, recipe: s.sh}}\n",
                       name, mtp, fraction);
  };
  const RecipeTable t = load_recipe_table(head + row("a", "false", "0.85") + row("b", "true", "0.82"), "s.yaml");
  ASSERT_EQ(t.recipes.size(), 2u);
  EXPECT_DOUBLE_EQ(t.recipes[0].decode.mem_fraction_static, 0.85);
  EXPECT_EQ(t.recipes[0].mtp, 0);
  EXPECT_EQ(t.recipes[1].mtp, 1);
  EXPECT_THROW(load_recipe_table(head + row("a", "false", "0.85") + row("b", "any", "0.82"), "s.yaml"), InputError);
  EXPECT_THROW(load_recipe_table(head + row("a", "false", "1.5"), "s.yaml"), InputError);
  EXPECT_THROW(load_recipe_table(head + row("a", "maybe", "0.82"), "s.yaml"), InputError);
}

// The ep_overlap layout: one row a precision, containers among those the file read, no two rows for the
// same model, GPU and precision whose containers meet.
TEST(RecipeLoader, EpOverlapTable) {
  const std::string head =
      "schema: gpuplan.megatron_bridge_ep_overlap/v1\nsource: NVIDIA-NeMo/Megatron-Bridge\n"
      "containers: {\"25.11\": v0.2.1, \"26.02\": v0.3.0, \"26.04\": v0.4.0}\nrecipe_default: false\nrecipes:\n";
  const std::string row =
      "  - {model: qwen3-30b-a3b, gpu: h100-sxm, precisions: [bf16, fp8], ep_overlap: true, from: \"25.11\", "
      "until: \"26.02\", recipe: x.py}\n";
  const RecipeTable t = load_recipe_table(head + row, "t.yaml");
  ASSERT_EQ(t.recipes.size(), 2u);
  EXPECT_EQ(t.recipes[1].precision, "fp8");
  EXPECT_EQ(t.recipes[0].kind, RecipeKind::ep_overlap);
  EXPECT_EQ(t.recipes[0].ep_overlap, 1);
  EXPECT_EQ(t.recipes[0].container_until, "26.02");
  EXPECT_EQ(t.recipe_default, 0);
  EXPECT_EQ(default_recipe_name(t.recipes[0]), "ep-overlap/qwen3-30b-a3b/h100-sxm-bf16@25.11");
  auto fails = [&](const std::string& text, const std::string& field) {
    try {
      load_recipe_table(text, "t.yaml");
      ADD_FAILURE() << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.field()).find(field), std::string::npos) << e.field() << ": " << e.what();
    }
  };
  fails(head + row + row, "recipes[1]");  // the same rows twice
  std::string bad = row;
  bad.replace(bad.find("\"26.02\""), 7, "\"26.03\"");
  fails(head + bad, "until");  // a container the file did not read
  bad = row;
  bad.replace(bad.find("fp8"), 3, "fp16");
  fails(head + bad, "precisions");
}

// The moe_dispatcher layout: the ep_overlap table's, its setting alltoall or flex (row and default).
TEST(RecipeLoader, MoeDispatcherTable) {
  const std::string head =
      "schema: gpuplan.megatron_bridge_moe_dispatcher/v1\nsource: NVIDIA-NeMo/Megatron-Bridge\n"
      "containers: {\"25.11\": v0.2.1, \"26.04\": v0.4.0}\nrecipe_default: flex\nrecipes:\n";
  const std::string row =
      "  - {model: gpt-oss-120b, gpu: b200, precisions: [bf16], dispatcher: alltoall, from: \"25.11\", "
      "until: \"26.04\", recipe: x.py}\n";
  const RecipeTable t = load_recipe_table(head + row, "t.yaml");
  ASSERT_EQ(t.recipes.size(), 1u);
  EXPECT_EQ(t.recipes[0].kind, RecipeKind::moe_dispatcher);
  EXPECT_EQ(t.recipes[0].moe_alltoall, 1);
  EXPECT_EQ(t.recipe_default, 0);
  EXPECT_EQ(default_recipe_name(t.recipes[0]), "moe-dispatcher/gpt-oss-120b/b200-bf16@25.11");
  std::string bad = row;
  bad.replace(bad.find("alltoall"), 8, "deepep");
  try {
    load_recipe_table(head + bad, "t.yaml");
    ADD_FAILURE() << bad;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.field()).find("dispatcher"), std::string::npos) << e.field() << ": " << e.what();
  }
}

TEST(RecipeCatalog, EveryBuiltinTableLoadsWithUniqueNamesAndSources) {
  const auto& all = builtin_recipes();
  ASSERT_GT(all.size(), 500u);
  std::set<std::string> names, tables;
  int evaluable = 0;
  for (const Recipe& r : all) {
    EXPECT_TRUE(names.insert(r.name).second) << r.name;
    EXPECT_NE(r.source.find('/'), std::string::npos) << r.name;
    EXPECT_FALSE(r.valid_from.empty() && r.container_from.empty()) << r.name;  // run dates, or containers
    EXPECT_EQ(r.model.empty(), false) << r.name;
    tables.insert(r.table);
    evaluable += r.evaluable();
  }
  // The five deployment tables of data/recipes, inferencex_scripts.yaml and the two container tables
  // (megatron_bridge_ep_overlap.yaml, megatron_bridge_moe_dispatcher.yaml).
  EXPECT_EQ(tables.size(), 8u);
  EXPECT_GT(evaluable, 400);
  const Recipe* r = find_recipe("trtllm/b200-fp4/1k1k/mtp/ctx1_gen2_dep8_batch64_eplb0_mtp2");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->system, "b200");
  EXPECT_EQ(r->decode.max_batch, 64);
  EXPECT_EQ(find_recipe("no such recipe"), nullptr);
  try {
    recipe_by_name("ctx1_gen2_dep8_batch64", "--recipe");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--recipe"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("ctx1_gen2_dep8_batch64_eplb0_mtp2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuplan
