#pragma once
// Reads the precision cell of a published table ("BF16 (amp)", "FP16/BF16 mixed", "FP8 (blockwise 1x128 act /
// 128x128 wt; BF16 attention/embedding/head)", "MXFP8", "NVFP4", "fp8-hybrid" ...) as the recipe whose format
// governs the GEMMs.
#include <optional>
#include <string>
#include <string_view>

#include "core/precision.h"

namespace gpuplan {

struct PrecisionReading {
  std::optional<Precision> precision;  // nullopt: the text names no format gpuplan models
  std::string note;                    // what was read, in words (for the row's assumptions); or why not
};

// The GEMM recipe of a precision cell. The format named before any parenthesis or ';' governs the GEMMs
// (what follows lists exceptions such as BF16 attention); FP16 runs at the BF16 rate; "mixed"/"amp"
// mean 16-bit GEMMs with FP32 master weights. TF32, FP32 and INT8 training are not modelled, and weight-only
// INT4 (W4A16, AWQ, GPTQ, int4_wo) is refused with the reason: it is a serving format nobody trains in.
PrecisionReading read_gemm_precision(std::string_view text);

// The serving weights' format of a precision cell ("FP8", "gemm=fp8; moe=fp8_block", "NVFP4 (W4A4)",
// "MXFP4", "fp8_e4m3", "W4A16 AWQ", "gemm=int4_wo; moe=int4_wo", "BF16/FP16"): FP4 formats (NVFP4, MXFP4)
// as nvfp4, FP8 formats as fp8, 16-bit as bf16, weight-only INT4 as w4a16. nullopt for INT8 or INT4
// GEMMs, 32-bit serving and text naming no format ("8-bit"): not modelled, never read as BF16.
std::optional<Precision> read_serving_weights(std::string_view text);

// Bytes per element of a KV-cache precision cell: FP8 / INT8 / FP4 formats 1, 16-bit formats and "auto"
// (the engines' default: the activations' 16-bit dtype) 2; nullopt for text naming none.
std::optional<double> read_kv_cache_bytes(std::string_view text);

}  // namespace gpuplan
