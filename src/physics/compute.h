#pragma once
// Time of compute work on one accelerator: GEMMs from their shape, attention from its FLOPs, and
// memory-bound kernels from their bytes. Pure functions of (work, hardware).
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

// Seconds for flash-attention work of `flops` FLOPs (BF16 tensor cores, fitted attention efficiency).
double attention_time_s(const Hardware& hw, double flops);

// Seconds to stream `bytes` through HBM at the fitted achieved bandwidth.
double memory_bound_time_s(const Hardware& hw, double bytes);

// Peak rate the precision's GEMMs run at (falls back to the nearest format the chip has).
double peak_flops(const Accelerator& a, MathFormat format);

}  // namespace gpuplan
