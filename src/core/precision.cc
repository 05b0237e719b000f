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
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view s) {
  const std::string n = normalize_name(s);
  if (n == "bf16" || n == "fp16" || n == "fp16bf16mixed" || n == "bf16mixed") return Precision::bf16;
  if (n == "fp8") return Precision::fp8;
  if (n == "mxfp8") return Precision::mxfp8;
  if (n == "nvfp4") return Precision::nvfp4;
  if (n == "fp4" || n == "mxfp4") return Precision::fp4;
  return std::nullopt;
}

MathFormat gemm_format(Precision p) {
  switch (p) {
    case Precision::bf16: return MathFormat::bf16;
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
  }
  return 2.0;
}

}  // namespace gpuplan
