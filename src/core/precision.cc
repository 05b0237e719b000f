#include "core/precision.h"

#include "core/suggest.h"

namespace gpuplan {

std::string_view to_string(MathFormat f) {
  switch (f) {
    case MathFormat::fp64: return "fp64";
    case MathFormat::fp32: return "fp32";
    case MathFormat::tf32: return "tf32";
    case MathFormat::bf16: return "bf16";
    case MathFormat::fp8: return "fp8";
    case MathFormat::fp6: return "fp6";
    case MathFormat::fp4: return "fp4";
    case MathFormat::int8: return "int8";
  }
  return "?";
}

std::optional<MathFormat> parse_math_format(std::string_view s) {
  for (MathFormat f : kAllMathFormats)
    if (normalize_name(s) == to_string(f)) return f;
  return std::nullopt;
}

std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::bf16: return "bf16";
    case Precision::fp8: return "fp8";
    case Precision::mxfp8: return "mxfp8";
    case Precision::nvfp4: return "nvfp4";
    case Precision::fp4: return "fp4";
    case Precision::w4a16: return "w4a16";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view s) {
  const std::string n = normalize_name(s);
  // FP16 alone is no precision of gpuplan's (its range differs from BF16's, and no recipe here runs it): refused,
  // not read as bf16. A text naming BF16 too ("FP16/BF16 mixed") names bf16.
  if (n == "bf16" || n == "fp16bf16mixed" || n == "bf16mixed") return Precision::bf16;
  if (n == "fp8") return Precision::fp8;
  if (n == "mxfp8") return Precision::mxfp8;
  if (n == "nvfp4") return Precision::nvfp4;
  if (n == "fp4" || n == "mxfp4") return Precision::fp4;
  // Weight-only INT4: the names serving tools give it. "int4" alone is not read (W4A8 and INT4 math
  // exist too); "awq"/"gptq" are 4-bit in practice (their 3- and 8-bit variants say so: gptq-int8).
  if (n == "w4a16" || n == "int4wo" || n == "int4weightonly" || n == "int4awq" || n == "awq" || n == "awqint4" ||
      n == "gptq" || n == "gptqint4" || n == "int4gptq" || n == "w4a16awq" || n == "w4a16gptq")
    return Precision::w4a16;
  return std::nullopt;
}

std::string precision_names() { return "bf16, fp8, mxfp8, nvfp4, fp4, w4a16"; }

MathFormat gemm_format(Precision p) {
  switch (p) {
    case Precision::bf16:
    case Precision::w4a16: return MathFormat::bf16;  // dequantized to BF16 in the GEMM's main loop
    case Precision::fp8:
    case Precision::mxfp8: return MathFormat::fp8;
    case Precision::nvfp4:
    case Precision::fp4: return MathFormat::fp4;
  }
  return MathFormat::bf16;
}

double weight_bytes(Precision p) {
  switch (p) {
    case Precision::bf16: return 2.0;
    case Precision::fp8: return 1.0;
    case Precision::mxfp8: return 1.0 + 1.0 / 32.0;  // one 8-bit scale per 32 elements (OCP MX spec)
    case Precision::nvfp4: return 0.5 + 1.0 / 16.0;  // one FP8 scale per 16 elements (NVFP4)
    case Precision::fp4: return 0.5 + 1.0 / 32.0;    // MXFP4: one 8-bit scale per 32 elements
    // INT4 in groups of 128 along the reduction dimension, each with an FP16 scale and a 4-bit zero
    // point (AWQ, Lin et al. 2024, and GPTQ's AutoGPTQ/Marlin checkpoints default to q_group_size=128
    // with zero points; TensorRT-LLM's int4_wo/W4A16 AWQ uses group 128): 0.5 + (2 + 0.5) / 128.
    case Precision::w4a16: return 0.5 + 2.5 / 128.0;
  }
  return 2.0;
}

double default_kv_bytes(Precision p) { return p == Precision::bf16 || p == Precision::w4a16 ? 2.0 : 1.0; }

std::string training_refusal(Precision p) {
  if (p != Precision::w4a16) return {};
  return "w4a16 (weight-only 4-bit: INT4 AWQ/GPTQ/int4_wo) is a serving format: its weights are quantized after "
         "training and no framework trains in it; train in bf16, fp8, mxfp8, nvfp4 or fp4";
}

}  // namespace gpuplan
