// InferenceX's SGLang + MoRI recipe limits (data/recipes/inferencex_mori.yaml): the embedded file,
// the checks on a malformed entry, and the match by run date.
#include "validate/mori_recipes.h"

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"

namespace gpuplan {
namespace {

constexpr const char* kMoriDecodeEntry =
    "  - precision: fp8\n"
    "    attention_dp: true\n"
    "    ep: true\n"
    "    valid_from: 2026-02-16\n"
    "    valid_to: 2026-05-30\n"
    "    max_running_requests: 160\n"
    "    source: SemiAnalysisAI/InferenceX\n"
    "    recipe: \"amd_utils server.sh\"\n";
constexpr const char* kMoriPrefillEntry =
    "  - precision: fp4\n"
    "    attention_dp: true\n"
    "    valid_from: 2026-03-13\n"
    "    max_running_requests: 24\n"
    "    dispatch_tokens_per_rank: 16384\n"
    "    max_prefill_tokens: 16384\n"
    "    source: SemiAnalysisAI/InferenceX\n"
    "    recipe: \"amd_utils models.yaml prefill dp\"\n";

// The two entries, with `from` replaced by `to` once (in the decode entry first, else the prefill one).
std::string mori_recipe_text(const std::string& from = "", const std::string& to = "") {
  std::string decode = kMoriDecodeEntry, prefill = kMoriPrefillEntry;
  if (!from.empty()) {
    if (const auto at = decode.find(from); at != std::string::npos) {
      decode.replace(at, from.size(), to);
    } else if (const auto pat = prefill.find(from); pat != std::string::npos) {
      prefill.replace(pat, from.size(), to);
    } else {
      ADD_FAILURE() << "no '" << from << "' in the entries";
    }
  }
  return "schema: gpuplan.inferencex_mori_recipes/v1\ndecode:\n" + decode + "prefill:\n" + prefill;
}

// The in-tree recipe's entries name InferenceX; the earlier ones the sglang_disagg repository the
// runs cloned (its stored branches), and none of those outlasts the in-tree recipe's start.
bool mori_source(const std::string& source, const std::string& valid_to) {
  return source == "SemiAnalysisAI/InferenceX" ||
         (source == "billishyahao/sglang_disagg" && !valid_to.empty() && valid_to <= "2026-02-18");
}

TEST(MoriRecipes, EmbeddedFileLoadsWithSources) {
  const MoriRecipes& r = builtin_mori_recipes();
  EXPECT_EQ(r.launch.size(), 3u);
  EXPECT_EQ(r.decode.size(), 16u);
  EXPECT_EQ(r.prefill.size(), 11u);
  for (const auto& k : r.launch) {
    EXPECT_EQ(k.source, "SemiAnalysisAI/InferenceX") << k.recipe;
    EXPECT_TRUE(k.tp_is_worker) << k.recipe;  // no script passed the config's TP before PR #823
    EXPECT_LE(k.valid_to, "2026-03-02") << k.recipe;
  }
  for (const auto& k : r.decode) EXPECT_TRUE(mori_source(k.source, k.valid_to)) << k.recipe;
  for (const auto& k : r.prefill) {
    EXPECT_TRUE(mori_source(k.source, k.valid_to)) << k.recipe;
    EXPECT_NE(k.chunked_prefill_size > 0, k.dispatch_tokens_per_rank > 0) << k.recipe;
    EXPECT_EQ(k.max_prefill_tokens, 16384) << k.recipe;  // SGLang's default: no recipe sets it
  }
}

TEST(MoriRecipes, ReadsAndMatchesByDate) {
  const MoriRecipes r = parse_mori_recipes(mori_recipe_text(), "t.yaml");
  ASSERT_EQ(r.decode.size(), 1u);
  ASSERT_EQ(r.prefill.size(), 1u);
  EXPECT_EQ(r.prefill.front().dispatch_tokens_per_rank, 16384);
  EXPECT_EQ(r.prefill.front().chunked_prefill_size, 0);
  EXPECT_TRUE(r.prefill.front().valid_to.empty());  // still in force
  ASSERT_NE(match_mori_decode_recipe(r, "2026-02-16", true, true, true), nullptr);
  EXPECT_NE(match_mori_decode_recipe(r, "2026-05-30", true, true, true), nullptr);  // inclusive
  EXPECT_EQ(match_mori_decode_recipe(r, "2026-05-31", true, true, true), nullptr);
  EXPECT_EQ(match_mori_decode_recipe(r, "2026-02-15", true, true, true), nullptr);
  EXPECT_EQ(match_mori_decode_recipe(r, "2026-03-01", false, true, true), nullptr);
  EXPECT_EQ(match_mori_decode_recipe(r, "2026-03-01", true, false, true), nullptr);
  EXPECT_EQ(match_mori_decode_recipe(r, "2026-03-01", true, true, false), nullptr);
  EXPECT_EQ(match_mori_decode_recipe(r, "2026-3-01", true, true, true), nullptr);
  // `ep: any` matches a worker with or without EP.
  const MoriRecipes any = parse_mori_recipes(mori_recipe_text("ep: true", "ep: any"), "t.yaml");
  EXPECT_NE(match_mori_decode_recipe(any, "2026-03-01", true, true, true), nullptr);
  EXPECT_NE(match_mori_decode_recipe(any, "2026-03-01", true, true, false), nullptr);
  EXPECT_NE(match_mori_prefill_recipe(r, "2027-01-01", false, true), nullptr);  // open end
  EXPECT_EQ(match_mori_prefill_recipe(r, "2026-03-12", false, true), nullptr);
  EXPECT_EQ(match_mori_prefill_recipe(r, "", false, true), nullptr);
}

// Each malformed field is an InputError naming its path and what is allowed, never a crash.
TEST(MoriRecipes, BadEntryNamesTheField) {
  struct Bad {
    const char* from;
    const char* to;
    const char* names;
    const char* says;
  };
  const Bad bad[] = {
      {"precision: fp8", "precision: bf16", "decode[0].precision", "must be fp4 or fp8"},
      {"attention_dp: true\n    ep", "attention_dp: perhaps\n    ep", "decode[0].attention_dp", "true or false"},
      {"ep: true", "ep: 8", "decode[0].ep", "true, false or any"},
      {"valid_from: 2026-02-16", "valid_from: 16/02/2026", "decode[0].valid_from", "YYYY-MM-DD"},
      {"valid_to: 2026-05-30", "valid_to: 2026-01-01", "decode[0].valid_to", "must not be before"},
      {"max_running_requests: 160", "max_running_requests: -1", "decode[0].max_running_requests", "between 0 and"},
      {"source: SemiAnalysisAI/InferenceX\n    recipe: \"amd_utils server.sh\"",
       "source: InferenceX\n    recipe: \"amd_utils server.sh\"", "decode[0].source", "owner/name"},
      {"    recipe: \"amd_utils server.sh\"\n", "", "decode[0].recipe", "is required"},
      {"max_running_requests: 24", "max_running_requests: 0", "prefill[0].max_running_requests", "between 1 and"},
      {"dispatch_tokens_per_rank: 16384", "dispatch_tokens_per_rank: 0", "prefill[0].dispatch_tokens_per_rank",
       "between 1 and"},
      {"    dispatch_tokens_per_rank: 16384\n", "", "prefill[0].chunked_prefill_size", "exactly one of"},
      {"dispatch_tokens_per_rank: 16384", "dispatch_tokens_per_rank: 16384\n    chunked_prefill_size: 16384",
       "prefill[0].chunked_prefill_size", "exactly one of"},
      {"max_prefill_tokens: 16384", "max_prefill_tokens: 1e9", "prefill[0].max_prefill_tokens", "between 1 and"},
      {"max_prefill_tokens: 16384", "max_prefill_token: 16384", "prefill[0].max_prefill_tokens", "is required"},
      {"max_prefill_tokens: 16384", "max_prefill_tokens: 16384\n    max_batch: 4", "prefill[0].max_batch",
       "unknown key"},
  };
  for (const Bad& b : bad) {
    try {
      parse_mori_recipes(mori_recipe_text(b.from, b.to), "t.yaml");
      ADD_FAILURE() << "'" << b.to << "' was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(b.names), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(b.says), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(parse_mori_recipes("schema: gpuplan.inferencex_mori_recipes/v1\ndecode: []\nprefill: []\n", "t.yaml"),
               InputError);
  EXPECT_THROW(parse_mori_recipes("schema: gpuplan.dynamo_prefill_recipes/v1\n", "t.yaml"), InputError);
}

// Two entries in force for one deployment on one day are refused, naming both.
TEST(MoriRecipes, OverlappingEntriesAreRefused) {
  const std::string text = mori_recipe_text();
  const std::string twice = text.substr(0, text.find("prefill:")) + kMoriDecodeEntry + text.substr(text.find("prefill:"));
  try {
    parse_mori_recipes(twice, "t.yaml");
    ADD_FAILURE() << "a duplicate entry was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("decode[1]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("decode[0]"), std::string::npos) << e.what();
  }
  // The other EP on the same days: accepted; `ep: any` meets both: refused.
  auto with_second = [&](const std::string& entry) {
    return text.substr(0, text.find("prefill:")) + entry + text.substr(text.find("prefill:"));
  };
  std::string other_ep = kMoriDecodeEntry, any_ep = kMoriDecodeEntry;
  other_ep.replace(other_ep.find("ep: true"), 8, "ep: false");
  any_ep.replace(any_ep.find("ep: true"), 8, "ep: any");
  EXPECT_EQ(parse_mori_recipes(with_second(other_ep), "t.yaml").decode.size(), 2u);
  EXPECT_THROW(parse_mori_recipes(with_second(any_ep), "t.yaml"), InputError);
  // The same shape from the day after: accepted; an open-ended one overlapping: refused.
  std::string later = kMoriDecodeEntry;
  later.replace(later.find("valid_from: 2026-02-16\n    valid_to: 2026-05-30"), 47, "valid_from: 2026-05-31");
  const std::string ok = text.substr(0, text.find("prefill:")) + later + text.substr(text.find("prefill:"));
  EXPECT_EQ(parse_mori_recipes(ok, "t.yaml").decode.size(), 2u);
  std::string open = kMoriDecodeEntry;
  open.replace(open.find("valid_from: 2026-02-16\n    valid_to: 2026-05-30"), 47, "valid_from: 2026-05-30");
  const std::string bad = text.substr(0, text.find("prefill:")) + open + text.substr(text.find("prefill:"));
  EXPECT_THROW(parse_mori_recipes(bad, "t.yaml"), InputError);
}

// The launch section: how the script of a date built a worker from the sweep config.
constexpr const char* kMoriLaunchEntries =
    "launch:\n"
    "  - precision: fp4\n"
    "    valid_from: 2026-01-08\n"
    "    valid_to: 2026-03-02\n"
    "    tp: worker\n"
    "    ep: worker\n"
    "    source: SemiAnalysisAI/InferenceX\n"
    "    recipe: \"dsr1_fp4_mi355x_sglang-disagg.sh\"\n"
    "  - precision: fp8\n"
    "    valid_from: 2026-02-12\n"
    "    valid_to: 2026-03-02\n"
    "    tp: worker\n"
    "    ep: config\n"
    "    source: SemiAnalysisAI/InferenceX\n"
    "    recipe: \"PR #674\"\n";

std::string with_launch(const std::string& launch) {
  std::string text = mori_recipe_text();
  return text.insert(text.find("decode:"), launch);
}

TEST(MoriRecipes, LaunchSectionMatchesByDateAndPrecision) {
  const MoriRecipes r = parse_mori_recipes(with_launch(kMoriLaunchEntries), "t.yaml");
  ASSERT_EQ(r.launch.size(), 2u);
  const MoriLaunchRecipe* fp4 = match_mori_launch_recipe(r, "2026-02-13", false);
  ASSERT_NE(fp4, nullptr);
  EXPECT_TRUE(fp4->tp_is_worker);
  EXPECT_TRUE(fp4->ep_is_worker);
  const MoriLaunchRecipe* fp8 = match_mori_launch_recipe(r, "2026-03-02", true);  // inclusive
  ASSERT_NE(fp8, nullptr);
  EXPECT_TRUE(fp8->tp_is_worker);
  EXPECT_FALSE(fp8->ep_is_worker);
  EXPECT_EQ(match_mori_launch_recipe(r, "2026-03-03", false), nullptr);  // the config's values
  EXPECT_EQ(match_mori_launch_recipe(r, "2026-02-11", true), nullptr);
  EXPECT_EQ(match_mori_launch_recipe(r, "13/02/2026", false), nullptr);
  // The section is optional: a file without it applies the configs' values.
  EXPECT_TRUE(parse_mori_recipes(mori_recipe_text(), "t.yaml").launch.empty());
}

TEST(MoriRecipes, BadLaunchEntryNamesTheField) {
  const std::string entries = kMoriLaunchEntries;
  auto swap = [&](const std::string& from, const std::string& to) {
    std::string t = entries;
    t.replace(t.find(from), from.size(), to);
    return with_launch(t);
  };
  const std::pair<std::string, std::string> bad[] = {
      {"tp: worker\n    ep: worker", "tp: 8\n    ep: worker"},
      {"ep: config", "ep: row"},
      {"precision: fp4", "precision: mxfp4"},
      {"valid_to: 2026-03-02\n    tp: worker\n    ep: worker", "valid_to: 2025-01-01\n    tp: worker\n    ep: worker"},
      {"ep: config", "ep: config\n    attention_dp: true"},
  };
  const char* names[] = {"launch[0].tp", "launch[1].ep", "launch[0].precision", "launch[0].valid_to",
                         "launch[1].attention_dp"};
  for (size_t i = 0; i < std::size(bad); ++i) {
    try {
      parse_mori_recipes(swap(bad[i].first, bad[i].second), "t.yaml");
      ADD_FAILURE() << "'" << bad[i].second << "' was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(names[i]), std::string::npos) << e.what();
    }
  }
  // Two entries of one precision on one day: refused, naming both.
  const std::string twice = swap("precision: fp8", "precision: fp4");
  try {
    parse_mori_recipes(twice, "t.yaml");
    ADD_FAILURE() << "overlapping launch entries were accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("launch[1]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("launch[0]"), std::string::npos) << e.what();
  }
}

// data/recipes/inferencex_mori_mtp.yaml: the MTP draft tokens of InferenceX's sweep config
// (DECODE_MTP_SIZE) by deployment, concurrency and date.
constexpr const char* kMoriMtpEntry =
    "  - precision: fp8\n"
    "    isl: 1024\n"
    "    osl: 1024\n"
    "    prefill: {workers: 1, width: 8, ep: true, attention_dp: true}\n"
    "    decode: {workers: 2, width: 8, ep: true, attention_dp: true}\n"
    "    concurrencies: [256, 512]\n"
    "    valid_from: 2026-02-12\n"
    "    valid_to: 2026-03-03\n"
    "    mtp_draft_tokens: 1\n"
    "    commit: d0fda0134c1e\n"
    "    recipe: \"[AMD] example (#1)\"\n";

std::string mori_mtp_text(const std::string& entries) {
  return "schema: gpuplan.inferencex_mori_mtp/v1\nsource: SemiAnalysisAI/InferenceX\nentries:\n" + entries;
}

TEST(MoriMtpRecipes, EmbeddedFileLoads) {
  const MoriRecipes& r = builtin_mori_recipes();
  ASSERT_GE(r.mtp.size(), 20u);
  for (const auto& k : r.mtp) {
    EXPECT_GE(k.mtp_draft_tokens, 1) << k.recipe;
    EXPECT_LE(k.mtp_draft_tokens, 3) << k.recipe;  // the config's DECODE_MTP_SIZE values
    EXPECT_FALSE(k.concurrencies.empty()) << k.recipe;
    EXPECT_EQ(k.commit.size(), 12u) << k.recipe;
  }
}

TEST(MoriMtpRecipes, MatchesDeploymentConcurrencyAndDate) {
  MoriRecipes r;
  parse_mori_mtp_recipes(mori_mtp_text(kMoriMtpEntry), "t.yaml", r);
  ASSERT_EQ(r.mtp.size(), 1u);
  const MoriWorkerShape pre{1, 8, true, true}, dec{2, 8, true, true};
  std::vector<const MoriMtpRecipe*> matched;
  EXPECT_EQ(match_mori_mtp_draft_tokens(r, "2026-02-12", true, 1024, 1024, pre, dec, 256, &matched), 1);
  EXPECT_EQ(matched.size(), 1u);
  EXPECT_EQ(match_mori_mtp_draft_tokens(r, "2026-03-03", true, 1024, 1024, pre, dec, 512), 1);
  // Outside the dates, another concurrency, precision, length or shape: none.
  EXPECT_EQ(match_mori_mtp_draft_tokens(r, "2026-02-11", true, 1024, 1024, pre, dec, 256), 0);
  EXPECT_EQ(match_mori_mtp_draft_tokens(r, "2026-03-04", true, 1024, 1024, pre, dec, 256), 0);
  EXPECT_EQ(match_mori_mtp_draft_tokens(r, "2026-02-20", true, 1024, 1024, pre, dec, 128, &matched), 0);
  EXPECT_TRUE(matched.empty());
  EXPECT_EQ(match_mori_mtp_draft_tokens(r, "2026-02-20", false, 1024, 1024, pre, dec, 256), 0);
  EXPECT_EQ(match_mori_mtp_draft_tokens(r, "2026-02-20", true, 8192, 1024, pre, dec, 256), 0);
  EXPECT_EQ(match_mori_mtp_draft_tokens(r, "2026-02-20", true, 1024, 1024, pre, MoriWorkerShape{1, 16, true, true}, 256), 0);
  EXPECT_EQ(match_mori_mtp_draft_tokens(r, "not a date", true, 1024, 1024, pre, dec, 256), 0);
}

TEST(MoriMtpRecipes, EntriesThatDisagreeGiveNone) {
  std::string second = kMoriMtpEntry;
  second.replace(second.find("mtp_draft_tokens: 1"), 19, "mtp_draft_tokens: 2");
  MoriRecipes r;
  parse_mori_mtp_recipes(mori_mtp_text(std::string(kMoriMtpEntry) + second), "t.yaml", r);
  const MoriWorkerShape pre{1, 8, true, true}, dec{2, 8, true, true};
  std::vector<const MoriMtpRecipe*> matched;
  EXPECT_EQ(match_mori_mtp_draft_tokens(r, "2026-02-20", true, 1024, 1024, pre, dec, 256, &matched), 0);
  EXPECT_EQ(matched.size(), 2u);  // both named in the row's note
}

TEST(MoriMtpRecipes, MalformedEntriesNameTheField) {
  auto error_of = [](const std::string& from, const std::string& to) {
    std::string e = kMoriMtpEntry;
    e.replace(e.find(from), from.size(), to);
    MoriRecipes r;
    try {
      parse_mori_mtp_recipes(mori_mtp_text(e), "t.yaml", r);
    } catch (const InputError& err) {
      return std::string(err.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("precision: fp8", "precision: int8").find("precision"), std::string::npos);
  EXPECT_NE(error_of("mtp_draft_tokens: 1", "mtp_draft_tokens: 0").find("mtp_draft_tokens"), std::string::npos);
  EXPECT_NE(error_of("[256, 512]", "[256, x]").find("concurrencies"), std::string::npos);
  EXPECT_NE(error_of("[256, 512]", "[]").find("concurrencies"), std::string::npos);
  EXPECT_NE(error_of("valid_to: 2026-03-03", "valid_to: 2026-01-01").find("valid_to"), std::string::npos);
  EXPECT_NE(error_of("width: 8, ep: true, attention_dp: true}\n    concurrencies",
                     "width: 8, ep: true, attention_dp: true, tp: 8}\n    concurrencies")
                .find("tp"),
            std::string::npos);
  MoriRecipes r;
  EXPECT_THROW(parse_mori_mtp_recipes("schema: other/v1\nsource: a/b\nentries: []\n", "t.yaml", r), InputError);
}

}  // namespace
}  // namespace gpuplan
