#pragma once
// The prefill side of the Dynamo recipes behind InferenceX's disaggregated rows:
// data/recipes/dynamo_prefill.yaml (hand-curated from NVIDIA/srt-slurm's recipe bodies and
// InferenceX's configs, each entry with its source, commit and recipe path), read and checked here,
// and the match of a row's stated deployment to the entry in force on its date.
// inferencex_prefill_limits (validate/inferencex_cases.h) turns the match into the pool's limits.
#include <string>
#include <vector>

namespace gpuplan {

// One recipe's prefill worker limits, per attention rank, as the file states them.
struct DynamoPrefillRecipe {
  bool trtllm = false;     // Dynamo + TensorRT-LLM (else Dynamo + SGLang)
  std::string gpu;         // the row's gpu cell, exactly (B200, H100-SXM, ...)
  bool fp4 = false;        // NVFP4 weights (else FP8)
  long long isl = 0;       // the row's nominal ISL
  int prefill_tp = 0;      // the row's prefill worker width
  bool prefill_attention_dp = false;
  int decode_attention_dp = -1;  // 0 no, 1 yes, -1 either
  int mtp = -1;                  // 0 off, 1 on, -1 either
  std::string valid_from, valid_to;  // run dates (YYYY-MM-DD), inclusive
  long long max_batch = 0;   // SGLang: requests held per rank; TensorRT-LLM: max_batch_size
  long long max_tokens = 0;  // SGLang: prompt tokens per rank and step; TensorRT-LLM: max_num_tokens
  // The prefill workers' environment runs the dense block-scaled FP8 GEMMs on SGLang's Triton kernel
  // (`fp8_gemm: triton`; absent or auto: the engine's default kernels).
  bool fp8_gemm_triton = false;
  std::string source;        // repository the figures come from
  std::string commit;        // its commit (40 hex digits), empty where not stored
  std::string recipe;        // recipe path(s) or config settings, as the rows' assumptions name them
};

struct DynamoPrefillRecipes {
  std::vector<DynamoPrefillRecipe> recipes;
};

// Parses the file's text; a missing, unknown or out-of-range field is an InputError naming its path
// and the allowed values, and two entries that would match one row are an error naming both.
DynamoPrefillRecipes parse_dynamo_prefill_recipes(const std::string& text, const std::string& origin);
// The embedded data/recipes/dynamo_prefill.yaml.
const DynamoPrefillRecipes& builtin_dynamo_prefill_recipes();

// What a row states about its prefill deployment (never its measured results).
struct DynamoPrefillQuery {
  bool trtllm = false;
  std::string gpu;  // the row's gpu cell
  bool fp4 = false;
  long long isl = 0;
  int prefill_tp = 0;
  bool prefill_attention_dp = false, decode_attention_dp = false, mtp = false;
  std::string date;  // YYYY-MM-DD
};

// The entry matching every key of the query within its dates, or nullptr.
const DynamoPrefillRecipe* match_dynamo_prefill_recipe(const DynamoPrefillRecipes& recipes,
                                                       const DynamoPrefillQuery& q);

}  // namespace gpuplan
