#include "validate/row_consistency.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>

#include "physics/compute.h"

namespace gpuplan {

namespace {

double ratio(double a, double b) { return a > b ? a / b : b / a; }

}  // namespace

std::optional<std::string> training_row_contradiction(const TrainingCase& c, const std::string& notes) {
  const TrainingWorkload& w = c.workload;
  const double flops_per_token = 3.0 * forward_flops_per_token(c.model, w.seq_len, true).total();
  const double peak_own = peak_flops(c.hardware.accelerator, gemm_format(w.precision));
  const double peak_bf16 = peak_flops(c.hardware.accelerator, MathFormat::bf16);
  if (!(flops_per_token > 0) || !(peak_own > 0) || !(peak_bf16 > 0)) return std::nullopt;
  // Tokens/s per GPU the reported figure says.
  double reported_tps = 0;
  if (c.metric == "tokens_per_sec_per_gpu") reported_tps = c.reported;
  else if (c.metric == "step_time_s") reported_tps = double(w.global_batch) * w.seq_len / (c.reported * w.num_gpus);
  else if (c.metric == "tflops_per_gpu") reported_tps = c.reported * 1e12 / flops_per_token;
  else reported_tps = c.reported / 100.0 * (c.mfu_basis == "precision_peak" ? peak_own : peak_bf16) / flops_per_token;
  if (!(reported_tps > 0) || !std::isfinite(reported_tps)) return std::nullopt;
  static const std::regex tflops(R"(TFLOP(?:/s|S)\s*(?:/|per\s+)GPU\s*[=:]\s*([0-9]+(?:\.[0-9]+)?))", std::regex::icase);
  static const std::regex mfu(R"(\bMFU\s*[=:]\s*([0-9]+(?:\.[0-9]+)?)\s*%)");
  std::smatch m;
  if (c.metric != "tflops_per_gpu" && std::regex_search(notes, m, tflops)) {
    const double stated = std::stod(m[1].str());
    const double tps = stated * 1e12 / flops_per_token;
    if (ratio(tps, reported_tps) > kContradictionRatio)
      return fmt::format("the row contradicts itself: its notes' {} TFLOP/s per GPU is {:.0f} tokens/s per GPU of this "
                         "model, its reported {} {:.0f} (x{:.1f} apart; FLOP conventions explain at most x{:.0f})",
                         m[1].str(), tps, c.metric, reported_tps, ratio(tps, reported_tps), kContradictionRatio);
  }
  if (c.metric != "mfu" && std::regex_search(notes, m, mfu)) {
    const double stated = std::stod(m[1].str()) / 100.0;
    const double own = stated * peak_own / flops_per_token, bf16 = stated * peak_bf16 / flops_per_token;
    const double apart = std::min(ratio(own, reported_tps), ratio(bf16, reported_tps));
    if (apart > kContradictionRatio)
      return fmt::format("the row contradicts itself: its notes' MFU of {}% is {:.0f} tokens/s per GPU of this model "
                         "(against the precision's peak; {:.0f} against the BF16 peak), its reported {} {:.0f} "
                         "(x{:.1f} apart; FLOP conventions explain at most x{:.0f})",
                         m[1].str(), own, bf16, c.metric, reported_tps, apart, kContradictionRatio);
  }
  return std::nullopt;
}

}  // namespace gpuplan
