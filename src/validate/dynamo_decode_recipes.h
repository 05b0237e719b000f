#pragma once
// The decode side of the Dynamo recipes behind InferenceX's disaggregated rows:
// data/recipes/dynamo_trtllm_decode.yaml (Dynamo + TensorRT-LLM) and dynamo_sglang_decode.yaml
// (Dynamo + SGLang), generated from NVIDIA/srt-slurm's recipe bodies by
// scripts/gen_dynamo_decode_recipes.py, each entry with its path (the file or each entry names the
// commit), and the match of a row's stated deployment to the recipe it ran.
#include <string>
#include <vector>

namespace gpuplan {

// One recipe's deployment and decode settings, as its body states them.
struct DynamoDecodeRecipe {
  std::string path;       // recipes/... in NVIDIA/srt-slurm (path:zip_override_x[i]: a resolved variant)
  std::string commit;     // the entry's commit, else the file's
  std::string source;     // the entry's repository (owner/name), else the file's
  std::string valid_from, valid_to;  // run dates the entry was in force (empty: the file's)
  std::string gpu;        // the recipe folder's GPU (b200, b300, gb200, gb300, h100, h200)
  std::string precision;  // fp4 or fp8
  long long isl = 0, osl = 0;
  int prefill_workers = 0, prefill_gpus_per_worker = 0;
  int decode_workers = 0, decode_gpus_per_worker = 0;
  bool decode_attention_dp = false;
  // Per attention rank with attention-DP, per worker without: trtllm_config.decode.max_batch_size;
  // SGLang's --max-running-requests / data-parallel-size (0: the recipe states none).
  long long decode_max_batch_size = 0;
  int mtp_draft_tokens = 0;  // num_nextn_predict_layers / SGLang's speculative-num-steps (0: no MTP)
  int eplb_slots = 0;                   // moe_config.load_balancer.num_slots (0: no load balancer)
  int scheduler_recv_interval = 1;      // SGLang's --scheduler-recv-interval (1: the default, absent)
  bool fp8_gemm_triton = false;         // the decode environment runs SGLang's Triton block-FP8 GEMMs (fp8_gemm)
  std::vector<long long> concurrencies; // benchmark.concurrencies
};

struct DynamoDecodeRecipes {
  std::string source, commit;
  std::string valid_from, valid_to;  // run dates (YYYY-MM-DD) the recipes were in force, inclusive
  std::vector<DynamoDecodeRecipe> recipes;
};

// Parses the file's text; a missing or out-of-range field is an InputError naming its path.
DynamoDecodeRecipes parse_dynamo_decode_recipes(const std::string& text, const std::string& origin);
// The embedded data/recipes/dynamo_trtllm_decode.yaml.
const DynamoDecodeRecipes& builtin_dynamo_decode_recipes();
// The embedded data/recipes/dynamo_sglang_decode.yaml.
const DynamoDecodeRecipes& builtin_dynamo_sglang_decode_recipes();

// What a row states about its deployment (never its measured results).
struct DynamoDecodeQuery {
  std::string gpu;        // the row's gpu cell (B200, GB200, H100-SXM, ...)
  std::string precision;  // the row's precision cell (FP8, NVFP4)
  long long isl = 0, osl = 0;
  int prefill_workers = 0, prefill_gpus_per_worker = 0;
  int decode_workers = 0, decode_gpus_per_worker = 0;
  bool decode_attention_dp = false;
  bool mtp = false;
  long long concurrency = 0;
  std::string date;  // YYYY-MM-DD
};

// The recipes whose deployment equals the query's (GPU, precision, ISL/OSL, both pools' workers and
// widths, decode attention-DP, MTP on/off) within each recipe's dates; of several, those whose
// benchmark ran the row's concurrency (all of them when none did). A field is known when every
// candidate states the same value: draft tokens, batch cap, receive interval and FP8 GEMM kernel are read
// independently.
struct DynamoDecodeMatch {
  int candidates = 0;
  bool draft_known = false, batch_known = false, recv_known = false, fp8_gemm_known = false;
  bool fp8_gemm_triton = false;
  int mtp_draft_tokens = 0;
  int scheduler_recv_interval = 1;
  long long decode_max_batch = 0;
  int eplb_slots = 0;  // the first candidate's
  std::string recipes;  // the candidates' paths, comma-separated
  std::string commits;  // the candidates' distinct commits (8 digits), comma-separated
  std::string sources;  // the candidates' distinct repositories, comma-separated
};
DynamoDecodeMatch match_dynamo_decode_recipe(const DynamoDecodeRecipes& recipes, const DynamoDecodeQuery& q);

}  // namespace gpuplan
