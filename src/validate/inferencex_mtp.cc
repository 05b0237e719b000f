#include "validate/inferencex_mtp.h"

#include <fmt/format.h>

#include "inference/engine.h"
#include "inference/speculative.h"
#include "validate/inferencex_scripts.h"

namespace gpuplan {

namespace {

bool mentions(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

bool nvidia_generation(const std::string& g) { return g == "blackwell" || g == "blackwell_ultra" || g == "hopper"; }

bool nvidia_sglang(const InferenceXMtpRun& run) {
  return mentions(run.framework, "sglang") && !mentions(run.framework, "mori") && nvidia_generation(run.generation);
}

}  // namespace

InferenceXMtpDrafts inferencex_mtp_drafts(const InferenceXMtpRun& run) {
  // SGLang on NVIDIA GPUs drafts 2 tokens a step (EAGLE --speculative-num-steps 2,
  // --speculative-num-draft-tokens 3: InferenceX's B200/B300/H200 SGLang MTP scripts and the
  // Dynamo + SGLang recipes of NVIDIA/srt-slurm); SGLang on AMD, ATOM and TensorRT-LLM draft 3.
  if (nvidia_sglang(run)) return {2, "SGLang's NVIDIA recipes"};
  // InferenceX's aggregated TensorRT-LLM MTP scripts (dsr1_*_trt_mtp.sh, since the first MTP runs
  // of 2026-01-15) set num_nextn_predict_layers 1 with attention-DP and 3 without.
  if (run.framework == "tensorrt-llm" && !run.disaggregated && run.attention_dp)
    return {1, "TensorRT-LLM's attention-DP script"};
  // InferenceX's ATOM MTP scripts (benchmarks/single_node/dsr1_{fp4,fp8}_mi355x_atom_mtp.sh) pass
  // `--method mtp` and, only the FP8 one from 2026-04-02, `--num-speculative-tokens 3`; without it
  // ATOM drafts its default, 1 (ROCm/ATOM atom/model_engine/arg_utils.py: num_speculative_tokens = 1
  // from 2025-12-10 through v0.1.6). The script's count: data/recipes/inferencex_scripts.yaml.
  if (mentions(run.framework, "atom") && !run.disaggregated) {
    const int script = inferencex_script_mtp_draft_tokens(run.model, "atom", run.weights, run.date);
    if (script == 0) return {1, "ATOM's default: the script sets no count"};
    return {script, "the ATOM script's --num-speculative-tokens"};
  }
  return {kMtpDraftTokensDefault, "default"};
}

std::string apply_inferencex_sglang_mtp_host(const Catalog& catalog, const InferenceXMtpRun& run,
                                             InferenceWorkload& w) {
  // SGLang's EAGLE worker runs its host work per step in series with the GPU (docs/inference-model.md,
  // "SGLang's speculative step") where the InferenceX scripts leave SGLANG_ENABLE_SPEC_V2 unexported
  // (dsr1_fp8_b200_mtp.sh since 2026-02-05, dsr1_fp8_b300_mtp.sh: spec v1 turns the overlap
  // scheduler off) and where the attention backend is FlashInfer (every Hopper SGLang MTP script and
  // recipe: EAGLEWorkerV2 captures its draft extend as a CUDA graph only for the Triton, TRTLLM-MLA,
  // FA3/FlashMLA and AMD aiter backends, and FlashInfer's MLA plan copies the batch's lengths to the
  // host each step). The B200 FP4 script, the Blackwell Dynamo + SGLang recipes (trtllm_mla, spec v2)
  // and AMD (aiter, spec v2) overlap it. The figures are the SGLang worker's, whatever front end.
  if (!nvidia_sglang(run)) return {};
  const bool blackwell = run.generation == "blackwell" || run.generation == "blackwell_ultra";
  const bool spec_v1 = run.framework == "sglang" && blackwell && !run.disaggregated && run.weights == Precision::fp8;
  if (!apply_sglang_mtp_host(catalog, run.generation, spec_v1, w)) return {};
  return fmt::format("SGLang's speculative worker in series with the GPU ({}): {:.1f} ms + {:.0f} us per sequence a "
                     "step",
                     spec_v1 ? "spec v1, no overlap scheduler" : "FlashInfer MLA: eager draft extend",
                     (w.mtp_host_step_s + (w.mtp_draft_extend_eager ? w.mtp_eager_draft_extend_s : 0.0)) * 1e3,
                     w.mtp_host_per_seq_step_s * 1e6);
}

}  // namespace gpuplan
