#pragma once
// Settings of InferenceX's published recipes that the rows of its schema do not carry but the run
// date and deployment decide (map_inferencex_cases in inference_cases.h applies them).
#include <string>

#include "core/precision.h"

namespace gpuplan {

struct DynamoDecodeQuery;
struct InferenceCase;
struct InferenceParallel;

// The decode side of the Dynamo recipe a disaggregated run ran (data/recipes/dynamo_trtllm_decode.yaml
// for `engine` "dynamo+tensorrt-llm", dynamo_sglang_decode.yaml for "dynamo+sglang"; `q` the run's
// stated deployment, clients and date), applied to `c` as InferenceX's own rows take it: the draft
// tokens, the decode batch cap per rank of `dec`, SGLang's receive interval and FP8 GEMM kernel, each
// said in the assumptions; nothing for another engine.
void apply_dynamo_decode_recipe(const std::string& engine, const DynamoDecodeQuery& q, const InferenceParallel& dec,
                                InferenceCase& c);

// The decode pool's running-request cap of InferenceX's SGLang + MoRI recipe (MI355X) in force on
// `date` (YYYY-MM-DD), for a decode worker with or without attention-DP and expert parallelism:
// sequences per attention-DP rank (per worker without attention-DP); 0 = no cap below the clients or
// no recipe for the date. Before the in-tree recipe the runs cloned billishyahao/sglang_disagg, whose
// stored branches state the limits taken for the unstored commits pinned later. Sources:
// data/recipes/inferencex_mori.yaml, docs/inference-model.md.
// `recipe` names the entry (its source and files); `found` false where none is in force.
struct MoriDecodeCap {
  bool found = false;
  long long max_batch = 0;
  std::string recipe;
};
MoriDecodeCap mori_decode_cap(const std::string& date, Precision weights, bool attention_dp, bool ep);

// How InferenceX's SGLang + MoRI launch script in force on `date` built a worker from the sweep
// config: until 2026-03-02 it passed no TP (the worker ran TP over all its GPUs; the config's tp is a
// label, attention-DP only where dp-attn is set), and it set EP over the worker whatever the config's
// ep (FP8 until 2026-02-11, MXFP4 until 2026-03-02). `found` false: the config's values hold.
struct MoriLaunch {
  bool found = false, tp_is_worker = false, ep_is_worker = false;
  std::string recipe;
};
MoriLaunch mori_launch(const std::string& date, Precision weights);

// The prefill workers' limits of the NVIDIA Dynamo recipe a row ran (NVIDIA/srt-slurm's
// sa-submission-q1-2026 recipes that InferenceX's configs name, 2026-01-28 to 2026-03-24, and the
// configs' own settings of December 2025), per attention rank, as DisaggregatedDeployment takes them:
// - max_batch: requests held from the start of prefill through the KV hand-off (SGLang:
//   --max-running-requests / dp_size; 0 for TensorRT-LLM, whose context requests leave the batch
//   when their context step ends and keep only their KV blocks while it is sent);
// - max_tokens: prompt tokens per step (SGLang: min(--chunked-prefill-size / dp_size,
//   --max-prefill-tokens, default 16,384); TensorRT-LLM without chunked prefill: the whole prompts of
//   `prompt_tokens` that max_batch_size and max_num_tokens admit, at least one).
// `found` is false (and the limits 0) where no stored recipe matches the row's engine, GPU,
// precision, ISL, prefill worker (TP, attention-DP), decode attention-DP, MTP and date; `recipe` names
// the source. Sources: data/recipes/dynamo_prefill.yaml (each entry's recipe path and commit),
// docs/inference-model.md.
struct PrefillRecipeLimits {
  bool found = false;
  long long max_batch = 0, max_tokens = 0;
  bool fp8_gemm_triton = false;  // the prefill workers' dense block-FP8 GEMMs on SGLang's Triton kernel
  std::string recipe;
};
// SGLang + MoRI's prefill worker (MI355X) under InferenceX's in-tree AMD recipe in force on `date`
// (benchmarks/multi_node/amd_utils: models.yaml prefill dp / no_dp, env.sh's
// MORI_MAX_DISPATCH_TOKENS_PREFILL, SGLang's default --max-prefill-tokens 16384), per attention rank of
// a worker `prefill_tp` wide (before it, the stored sglang_disagg branches' limits); `found` false
// for a date no entry covers or one that does not parse.
PrefillRecipeLimits mori_prefill_limits(const std::string& date, Precision weights, bool attention_dp, int prefill_tp);

PrefillRecipeLimits inferencex_prefill_limits(const std::string& framework, const std::string& gpu,
                                              const std::string& precision, long long isl, long long prompt_tokens,
                                              int prefill_tp, bool prefill_attention_dp, bool decode_attention_dp,
                                              bool mtp, const std::string& date);

// The found limits `lim` on `c`'s prefill workers (their request and token caps, said in the assumptions)
// and the recipe's FP8 GEMM kernel, found or not; `c.disagg.prefill` is the worker they apply to.
void apply_prefill_recipe_limits(const PrefillRecipeLimits& lim, InferenceCase& c);

}  // namespace gpuplan
