#pragma once
// Time of compute work on one accelerator: GEMMs from their shape, attention from its FLOPs, and
// memory-bound kernels from their bytes. Pure functions of (work, hardware).
#include <string>

#include "core/precision.h"
#include "physics/hardware.h"

namespace gpuplan {

// Achieved fraction of peak for an (m x k) @ (k x n) GEMM: the generation's best fraction, times
// tile quantization (128x128 output tiles, 64-deep k steps) and a roll-off for small dimensions,
// 1/(1 + half_dim/m + half_dim/n + half_dim/k) (skinny GEMMs are memory- and launch-bound).
double gemm_efficiency(const Efficiency& e, double m, double n, double k);

// Seconds for `count` GEMMs of this shape in `format` (bf16/fp8/fp4); FP8/FP4 gain over BF16 by the
// peak ratio times the generation's fp8/fp4 scale. Never faster than its operands' HBM traffic.
double gemm_time_s(const Hardware& hw, MathFormat format, double m, double n, double k, double count = 1);

// Seconds for a training framework's grouped GEMM over `experts` local experts, each a GEMM of
// (rows_per_expert x k) @ (k x n) at its own shape's efficiency (tile quantization and small-dimension
// roll-off on the per-expert rows, not on the aggregate), plus the generation's fixed cost per expert
// GEMM (expert_gemm_overhead_s: the per-expert call, quantization and bookkeeping that do not shrink
// with the expert's size). Many small experts at few tokens each pay it many times.
double grouped_gemm_time_s(const Hardware& hw, MathFormat format, double rows_per_expert, double n, double k,
                           double experts);

// Seconds for flash-attention work of `flops` FLOPs (BF16 tensor cores, fitted attention efficiency).
double attention_time_s(const Hardware& hw, double flops);

// Seconds to stream `bytes` through HBM at the fitted achieved bandwidth.
double memory_bound_time_s(const Hardware& hw, double bytes);

// Peak rate the precision's GEMMs run at (falls back to the nearest format the chip has).
double peak_flops(const Accelerator& a, MathFormat format);

// The format GEMMs asked for in `wanted` really run in on this chip: `wanted` when it has tensor
// cores for it, else a wider one it has, as frameworks do (weights stay stored narrow and are
// widened before the math): 4-bit weights on a chip without FP4 math run weight-only, in BF16 (the
// Triton / Marlin MXFP4 and INT4 kernels vLLM, SGLang and TensorRT-LLM use on Hopper and Ampere:
// 16-bit activations), FP6 in FP8 where the chip has it, else BF16.
MathFormat executed_format(const Accelerator& a, MathFormat wanted);
// The tensor-core formats the chip has a peak for, narrowest first ("fp4, fp8, bf16, tf32").
std::string format_list(const Accelerator& a);
// Empty when the chip runs the precision's GEMM format natively; otherwise a sentence saying it does
// not, naming the formats it has.
std::string unsupported_precision(const Accelerator& a, Precision p);
// Whether serving can run precision `p` on the chip, natively or by the fallback below (weights stored
// narrow, math in the wider format the chip has): empty when it can; otherwise unsupported_precision's
// sentence (a chip with no format to fall back to).
std::string serving_refusal(const Accelerator& a, Precision p);
// Serving's fallback, stated: empty when native; otherwise "H100 SXM has no fp4 tensor cores (it has
// fp8, bf16, ...): weights stored in fp4, math in bf16".
std::string serving_fallback_note(const Accelerator& a, Precision p);
// Why the prompts' attention cannot run in FP8 on `a` (InferenceWorkload::fp8_context_attention): empty
// where it has FP8 tensor cores; otherwise "A100 80GB SXM4 has no FP8 tensor cores (bf16 is what it runs)".
std::string fp8_attention_refusal(const Accelerator& a);

}  // namespace gpuplan
