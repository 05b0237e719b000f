#pragma once
// The scheduler limits of InferenceX's in-tree SGLang + MoRI disaggregation recipe (MI355X) by run
// date: data/recipes/inferencex_mori.yaml (hand-curated from SemiAnalysisAI/InferenceX's amd_utils
// and its pull requests, each entry with its source), read and checked here.
// mori_decode_max_batch and mori_prefill_limits (validate/inferencex_cases.h) apply them.
#include <string>
#include <vector>

namespace gpuplan {

// The decode worker's --max-running-requests in force for one deployment shape and date range.
struct MoriDecodeRecipe {
  bool fp8 = false;  // FP8 weights (else MXFP4: any weights but FP8)
  bool attention_dp = false, ep = false;
  std::string valid_from, valid_to;  // YYYY-MM-DD, inclusive; valid_to empty: still in force
  long long max_running_requests = 0;  // per attention-DP rank with attention-DP, per worker without; 0: no cap
  std::string source, recipe;
};

// The prefill worker's limits, per worker as models.yaml and env.sh state them.
struct MoriPrefillRecipe {
  bool fp8 = false;
  bool attention_dp = false;
  std::string valid_from, valid_to;
  long long max_running_requests = 0;
  long long chunked_prefill_size = 0;      // tokens a worker step (0: dispatch_tokens_per_rank x TP)
  long long dispatch_tokens_per_rank = 0;  // MORI_MAX_DISPATCH_TOKENS_PREFILL (0: chunked_prefill_size)
  long long max_prefill_tokens = 0;        // per rank and step
  std::string source, recipe;
};

struct MoriRecipes {
  std::vector<MoriDecodeRecipe> decode;
  std::vector<MoriPrefillRecipe> prefill;
};

// Parses the file's text; a missing, unknown or out-of-range field is an InputError naming its path
// and the allowed values, and two entries that would match one row are an error naming both.
MoriRecipes parse_mori_recipes(const std::string& text, const std::string& origin);
// The embedded data/recipes/inferencex_mori.yaml.
const MoriRecipes& builtin_mori_recipes();

// The entry in force on `date` (YYYY-MM-DD) for the deployment, or nullptr (none before the recipe,
// or a date that does not parse).
const MoriDecodeRecipe* match_mori_decode_recipe(const MoriRecipes& recipes, const std::string& date, bool fp8,
                                                 bool attention_dp, bool ep);
const MoriPrefillRecipe* match_mori_prefill_recipe(const MoriRecipes& recipes, const std::string& date, bool fp8,
                                                   bool attention_dp);

}  // namespace gpuplan
