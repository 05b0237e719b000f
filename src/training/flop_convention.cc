#include "training/flop_convention.h"

namespace gpuplan {

std::string_view to_string(FlopConvention c) {
  switch (c) {
    case FlopConvention::model: return "model";
    case FlopConvention::narayanan_2021: return "narayanan-2021";
    case FlopConvention::noncausal_attention: return "noncausal-attention";
  }
  return "model";
}

std::optional<FlopConvention> parse_flop_convention(const std::string& text) {
  if (text == "model") return FlopConvention::model;
  if (text == "narayanan-2021") return FlopConvention::narayanan_2021;
  if (text == "noncausal-attention") return FlopConvention::noncausal_attention;
  return std::nullopt;
}

double tflops_per_gpu(FlopConvention c, const ModelArch& model, const TrainingWorkload& w, const TrainingResult& r) {
  if (c == FlopConvention::model) return r.model_tflops_per_gpu;
  if (c == FlopConvention::noncausal_attention) return r.tokens_per_s_per_gpu * r.model_flops_per_token_noncausal / 1e12;
  const double B = double(w.global_batch), s = w.seq_len, l = model.layers, h = model.hidden, V = model.vocab;
  const double F = 96.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));
  return F / (r.step_time_s * w.num_gpus) / 1e12;
}

}  // namespace gpuplan
