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
// or activation element takes in memory. w4a16 is weight-only quantization (INT4 AWQ/GPTQ, TensorRT-LLM
// and AIConfigurator's int4_wo, Kimi K2.x's INT4 checkpoint): 4-bit weights with group scales, dequantized
// to BF16 inside the GEMM, activations and KV at 16 bits; it serves, it does not train.
enum class Precision { bf16, fp8, mxfp8, nvfp4, fp4, w4a16 };
std::string_view to_string(Precision p);
// Accepts bf16 ("fp16/bf16 mixed"), fp8, mxfp8, nvfp4, fp4, mxfp4, and for w4a16: w4a16, int4_wo, int4-awq, awq,
// gptq-int4, gptq, int4-gptq, int4-weight-only (case-insensitive, punctuation ignored); nullopt otherwise, fp16
// alone included (not a precision gpuplan models; dataset readers take it as 16-bit GEMMs at the BF16 rate).
std::optional<Precision> parse_precision(std::string_view s);
// Every precision's name, for help texts and error messages: "bf16, fp8, mxfp8, nvfp4, fp4, w4a16".
std::string precision_names();
MathFormat gemm_format(Precision p);
// Bytes per weight element when weights are stored at this precision (4-bit formats count their scales).
double weight_bytes(Precision p);
// Bytes per KV-cache element a serving framework keeps by default with these weights: 2 where the
// activations are 16-bit (bf16, w4a16), 1 (FP8 KV) with FP8/FP4 checkpoints.
double default_kv_bytes(Precision p);
// Empty when training can run in p; else why not (weight-only quantization has no training recipe).
std::string training_refusal(Precision p);

}  // namespace gpuplan
