#pragma once
// Achieved-fraction parameters per accelerator generation, fitted on published measurements by
// `gpuplan calibrate` (or measured by `gpuplan probe`). These are the only tunable numbers of the
// performance models: one set per generation, never per model or per benchmark row.
#include <string>
#include <vector>

namespace gpuplan {

struct Efficiency {
  std::string generation;  // matches Accelerator::generation

  // GEMM: achieved/peak = gemm_max * f(m,n,k), f from tile and wave quantization and a roll-off
  // for small dimensions: f = d/(d + gemm_half_dim) applied to the smallest of m, n, k.
  double gemm_max = 0.80;           // large, square, well-tiled GEMM at BF16
  double gemm_half_dim = 128;       // dimension at which f falls to 1/2
  double gemm_fp8_scale = 0.85;     // achieved fraction at FP8 relative to BF16's (scaling, casts)
  double gemm_fp4_scale = 0.75;     // likewise for FP4
  double attention_eff = 0.55;      // flash-attention achieved fraction of the BF16 peak
  double hbm_eff = 0.80;            // achieved fraction of peak HBM bandwidth for streaming kernels
  double scaleup_eff = 0.75;        // achieved fraction of scale-up link bandwidth (bus bandwidth)
  double scaleout_eff = 0.70;       // achieved fraction of scale-out NIC bandwidth
  double kernel_overhead_s = 4e-6;  // launch/sync overhead per kernel or collective call
  double overlap_eff = 0.85;        // share of overlappable communication that truly hides
  // Fixed time of one expert's GEMM in a training framework's grouped linear (Megatron/TE
  // GroupedLinear: per local expert a GEMM call plus its input quantization, scaling and bookkeeping,
  // issued from the host one expert after another). Paid per local expert per GEMM whatever its rows,
  // so it is what makes many small experts slow at few tokens per expert (docs/training-model.md).
  double expert_gemm_overhead_s = 2e-5;  // prior: a few framework ops of ~5-10 us host dispatch each
  // Serving (inference) parameters, fitted by `gpuplan calibrate --inference` on measured serving
  // runs (docs/inference-model.md). Decode streams weights and KV through HBM in small kernels with
  // a framework step around them, unlike training's large fused kernels, so it gets its own values;
  // GEMM and attention compute keep the training fit's values.
  double infer_hbm_eff = 0.80;            // achieved HBM fraction of decode/prefill streaming (weights, KV)
  double infer_step_overhead_s = 1e-3;    // host/framework time per forward step (schedule, sample, launch)
  double infer_kernel_overhead_s = 4e-6;  // launch/tail per kernel or collective inside a forward step
  std::string infer_fitted_on;            // dataset the serving values were fitted on
  std::string infer_fitted_date;
  std::string infer_method;
  // Prefill-side serving parameters (docs/inference-model.md, "Prefill rate per generation"): the
  // GEMM and attention efficiencies serving steps run at, in place of gemm_max and attention_eff
  // (the FP8/FP4 scales and the small-dimension roll-off stay the training fit's). Fitted by
  // `gpuplan calibrate --inference --prefill` on TTFT at low load jointly with each engine's front
  // end. 0: not fitted, the training values apply.
  double infer_gemm_max = 0;
  double infer_mla_prefill_eff = 0;
  // The share of the FP8 GEMM efficiency that block-scaled FP8 GEMMs reach in serving (weights with
  // one scale per block, ModelArch::fp8_weight_block, activations quantized per 1 x 128 group at run
  // time: DeepSeek-V3/R1's published checkpoint), fitted by `calibrate --inference --prefill` on the
  // prefill pools' throughput in the opening wave of closed-loop runs (p99 TTFT); 0: not fitted, 1.
  double infer_fp8_block_share = 0;
  // The same share for the dense block-scaled FP8 GEMMs of a deployment that runs them on the
  // engine's Triton fallback kernel (InferenceWorkload::fp8_block_gemm_triton: SGLang on Blackwell
  // with JIT DeepGEMM disabled and FlashInfer's FP8 GEMM not enabled), fitted by `calibrate --inference
  // --prefill` on the rows whose recipes run it; 0: not fitted, infer_fp8_block_share applies.
  double infer_fp8_block_triton_share = 0;
  std::string infer_prefill_fitted_on;
  std::string infer_prefill_fitted_date;
  std::string infer_prefill_method;
  // The rate of absorbed-MLA decode attention (FlashMLA, trtllm-gen / FlashInfer MLA, AITER's MLA
  // decode) as a fraction of the bf16 peak, in place of attention_eff (the training fit's flash-
  // attention rate) for MLA decode rows. Fitted by `gpuplan calibrate --inference --params
  // infer_mla_decode_eff` on TPOT (docs/inference-model.md, "MLA decode attention rate"); 0: not
  // fitted, attention_eff applies.
  double infer_mla_decode_eff = 0;
  // Query rows per MMA tile of the generation's absorbed-MLA decode kernels: a rank's heads x the
  // query tokens it verifies pad up to it (a fact of the kernels, not fitted). FlashMLA and the
  // Blackwell MLA kernels tile 64 rows (FlashMLA kBlockM = 64 over seqlen_q x heads); AITER's MLA
  // decode on CDNA has kernels for 16 query heads (DeepSeek's 128 heads over TP8) on 16-row MFMA
  // tiles.
  int mla_decode_tile_rows = 64;
  std::string infer_mla_decode_fitted_on;
  std::string infer_mla_decode_fitted_date;
  std::string infer_mla_decode_method;

  std::string fitted_on;            // dataset the values were fitted on
  std::string fitted_date;          // ISO date
  std::string method;               // how they were obtained
  std::string origin;
};

}  // namespace gpuplan

namespace gpuplan {
class YamlMap;
// Reads one `efficiencies:` entry (strict keys); throws InputError naming the key path.
Efficiency parse_efficiency(YamlMap& m, const std::string& origin);
// Serialises entries as a YAML document with a top-level `efficiencies:` list (what calibrate writes).
std::string efficiencies_to_yaml(const std::vector<Efficiency>& entries, const std::string& header_comment);
}  // namespace gpuplan
