#pragma once
// Numeric formats: the rate tables of the catalog and the precisions of a plan.
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace gpuplan {

// Tensor-core math formats with a dense peak rate in the catalog.
enum class MathFormat { fp64, fp32, tf32, bf16, fp8, fp6, fp4, int8 };
inline constexpr std::array<MathFormat, 8> kAllMathFormats = {
    MathFormat::fp64, MathFormat::fp32, MathFormat::tf32, MathFormat::bf16,
    MathFormat::fp8,  MathFormat::fp6,  MathFormat::fp4,  MathFormat::int8};

std::string_view to_string(MathFormat f);
std::optional<MathFormat> parse_math_format(std::string_view s);

// Training / inference precision recipes. A recipe names the GEMM math format and the bytes a weight
// or activation element takes in memory.
enum class Precision { bf16, fp8, mxfp8, nvfp4, fp4 };
std::string_view to_string(Precision p);
// Accepts bf16, fp16, fp8, mxfp8, nvfp4, fp4, mxfp4 (case-insensitive); nullopt otherwise.
std::optional<Precision> parse_precision(std::string_view s);
MathFormat gemm_format(Precision p);
// Bytes per weight element when weights are stored at this precision (fp4 counts its scales).
double weight_bytes(Precision p);

}  // namespace gpuplan
