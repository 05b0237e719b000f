#include "validate/precision_text.h"

#include <fmt/format.h>

#include <cctype>
#include <optional>
#include <vector>

namespace gpuplan {

namespace {

// Formats a table may name, narrowest first: where one cell names several ("FP16/BF16 mixed",
// "FP8/BF16"), the narrowest is the one the GEMMs were switched to.
// Weight-only INT4 ranks first: a cell naming it ("W4A16 (BF16 GEMMs)") describes quantized serving weights
// whatever 16-bit format it also names.
enum class Named { w4a16, nvfp4, mxfp4, fp4, mxfp8, fp8, bf16, fp16, tf32, fp32, int8, none };

Named classify(const std::string& tok) {
  if (tok == "nvfp4") return Named::nvfp4;
  if (tok == "mxfp4") return Named::mxfp4;
  if (tok == "fp4" || tok == "e2m1") return Named::fp4;
  if (tok == "mxfp8") return Named::mxfp8;
  if (tok == "fp8" || tok == "float8" || tok == "e4m3" || tok == "e5m2" || tok == "fp8hybrid") return Named::fp8;
  if (tok == "bf16" || tok == "bfloat16") return Named::bf16;
  if (tok == "fp16" || tok == "float16" || tok == "half") return Named::fp16;
  if (tok == "tf32" || tok == "tensorfloat32") return Named::tf32;
  if (tok == "fp32" || tok == "float32") return Named::fp32;
  if (tok == "int8") return Named::int8;
  // Weight-only INT4 (W4A16: AWQ, GPTQ, int4_wo, "int4" alone): 4-bit weights, 16-bit math.
  if (tok == "w4a16" || tok == "awq" || tok == "gptq" || tok == "int4" || tok == "int4wo") return Named::w4a16;
  return Named::none;
}

std::vector<std::string> tokens(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c)) {
      cur.push_back(static_cast<char>(std::tolower(c)));
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// The narrowest format named in `s`, or none; `mixed` is set when the text says mixed precision / AMP.
Named narrowest(std::string_view s, bool& mixed) {
  Named best = Named::none;
  for (const auto& t : tokens(s)) {
    if (t == "mixed" || t == "amp") mixed = true;
    const Named n = classify(t);
    if (n != Named::none && static_cast<int>(n) < static_cast<int>(best)) best = n;
  }
  return best;
}

}  // namespace

PrecisionReading read_gemm_precision(std::string_view text) {
  PrecisionReading r;
  const std::string quoted = fmt::format("'{}'", text);
  // The head (before a parenthesis or ';') names the GEMM format; the rest lists exceptions
  // ("BF16 attention/embedding/head") or how it was known ("not stated", "inferred").
  const size_t cut = text.find_first_of("(;[");
  const std::string_view head = text.substr(0, cut);
  bool mixed = false;
  Named n = narrowest(head, mixed);
  bool from_tail = false;
  if (n == Named::none && cut != std::string_view::npos) {
    n = narrowest(text.substr(cut), mixed);
    from_tail = n != Named::none;
  }
  auto read = [&](Precision p, const char* what) {
    r.precision = p;
    r.note = fmt::format("precision {} read as {}{}", quoted, what, from_tail ? " (named in the parenthesis)" : "");
  };
  switch (n) {
    case Named::nvfp4: read(Precision::nvfp4, "NVFP4 GEMMs"); break;
    case Named::mxfp4: read(Precision::fp4, "MXFP4 GEMMs"); break;
    case Named::fp4: read(Precision::fp4, "FP4 GEMMs"); break;
    case Named::mxfp8: read(Precision::mxfp8, "MXFP8 GEMMs"); break;
    case Named::fp8: read(Precision::fp8, "FP8 GEMMs (other layers in BF16)"); break;
    case Named::bf16: read(Precision::bf16, "BF16 GEMMs"); break;
    case Named::fp16: read(Precision::bf16, "16-bit GEMMs (FP16 runs at the BF16 rate)"); break;
    case Named::tf32:
      r.note = fmt::format("precision {} is TF32 training, which gpuplan does not model (BF16, FP16, FP8, "
                           "MXFP8, NVFP4, FP4 only)", quoted);
      break;
    case Named::fp32:
      r.note = fmt::format("precision {} is FP32 training, which gpuplan does not model (BF16, FP16, FP8, "
                           "MXFP8, NVFP4, FP4 only)", quoted);
      break;
    case Named::int8:
      r.note = fmt::format("precision {} is INT8 training, which gpuplan does not model (BF16, FP16, FP8, "
                           "MXFP8, NVFP4, FP4 only)", quoted);
      break;
    case Named::w4a16:
      r.note = fmt::format("precision {} is weight-only INT4 (w4a16: 4-bit weights, BF16 GEMMs), a serving format "
                           "no framework trains in: gpuplan does not model training in it", quoted);
      break;
    case Named::none:
      if (tokens(text).empty()) {
        r.precision = Precision::bf16;
        r.note = "precision blank: BF16 GEMMs (the frameworks' default mixed precision)";
      } else if (mixed) {
        r.precision = Precision::bf16;
        r.note = fmt::format("precision {} names no format: 16-bit mixed precision, BF16 GEMMs", quoted);
      } else {
        r.note = fmt::format("precision {} names no format; gpuplan does not model other formats than BF16, FP16, "
                             "FP8, MXFP8, NVFP4, FP4", quoted);
      }
      break;
  }
  return r;
}

std::optional<Precision> read_serving_weights(std::string_view text) {
  bool w4a16 = false, int4 = false, weight_only = false, int_gemm = false;
  bool fp4 = false, fp8 = false, b16 = false;
  for (const auto& t : tokens(text)) {
    if (t == "w4a16" || t == "awq" || t == "gptq" || t == "int4wo") w4a16 = true;
    else if (t == "int4") int4 = true;
    else if (t == "wo" || t == "only") weight_only = true;  // "int4_wo", "INT4 weight-only"
    else if (t == "int8" || t == "w8a8int8") int_gemm = true;
    else switch (classify(t)) {
        case Named::nvfp4: case Named::mxfp4: case Named::fp4: fp4 = true; break;
        case Named::mxfp8: case Named::fp8: fp8 = true; break;
        case Named::bf16: case Named::fp16: b16 = true; break;
        default: break;
      }
  }
  if (w4a16 || (int4 && weight_only)) return Precision::w4a16;
  if (int4 || int_gemm) return std::nullopt;
  if (fp4) return Precision::nvfp4;
  if (fp8) return Precision::fp8;
  if (b16) return Precision::bf16;
  return std::nullopt;  // FP32 / TF32 serving and text naming no format are not modelled
}

std::optional<double> read_kv_cache_bytes(std::string_view text) {
  bool one = false, two = false;
  for (const auto& t : tokens(text)) {
    if (t == "int8") one = true;
    // "auto": the engines' default, the activations' dtype (vLLM/SGLang --kv-cache-dtype auto), 16-bit.
    if (t == "auto") two = true;
    switch (classify(t)) {
      case Named::nvfp4: case Named::mxfp4: case Named::fp4: case Named::mxfp8: case Named::fp8: one = true; break;
      case Named::bf16: case Named::fp16: two = true; break;
      default: break;
    }
  }
  if (one) return 1.0;
  if (two) return 2.0;
  return std::nullopt;
}

}  // namespace gpuplan
