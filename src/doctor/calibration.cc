#include "doctor/calibration.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "catalog/efficiency.h"
#include "core/error.h"
#include "core/precision.h"

namespace gpuplan::doctor {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

double min_dim(const GemmSample& s) { return static_cast<double>(std::min({s.m, s.n, s.k})); }

double peak_for(const Accelerator& acc, const std::string& format) {
  const auto f = parse_math_format(format);
  return f ? acc.peak(*f) : 0.0;
}

}  // namespace

Calibration fit_calibration(const ProbeMeasurements& m, const Accelerator& acc, const Efficiency& base,
                            const std::string& date) {
  Calibration c;
  c.efficiency = base;
  c.efficiency.generation = acc.generation;
  const double bf16_peak = acc.peak(MathFormat::bf16);
  if (bf16_peak <= 0) throw InputError("accelerator", "'" + acc.name + "' has no BF16 peak in the catalog");
  std::vector<const GemmSample*> bf16;
  for (const auto& s : m.gemms)
    if (s.format == "bf16" && s.median_s > 0) bf16.push_back(&s);
  if (bf16.empty()) throw InputError("probe", "no BF16 GEMM samples to fit");

  // Grid over half_dim; for each, the best log(gemm_max) is the mean log residual.
  double best_err = INFINITY, best_h = base.gemm_half_dim, best_max = base.gemm_max;
  for (double h = 0; h <= 2048; h += 4) {
    double sum = 0;
    for (const auto* s : bf16) sum += std::log(s->flops_per_s() / bf16_peak / (min_dim(*s) / (min_dim(*s) + h)));
    const double log_max = sum / static_cast<double>(bf16.size());
    double err = 0;
    for (const auto* s : bf16) {
      const double r = std::log(s->flops_per_s() / bf16_peak / (min_dim(*s) / (min_dim(*s) + h))) - log_max;
      err += r * r;
    }
    if (err < best_err - 1e-12) best_err = err, best_h = h, best_max = std::exp(log_max);
  }
  c.efficiency.gemm_max = best_max;
  c.efficiency.gemm_half_dim = best_h;
  auto curve = [&](const GemmSample& s) { return best_max * min_dim(s) / (min_dim(s) + best_h); };

  std::vector<double> fp8_ratio;
  const double fp8_peak = acc.peak(MathFormat::fp8);
  for (const auto& s : m.gemms)
    if (s.format == "fp8" && s.median_s > 0 && fp8_peak > 0)
      fp8_ratio.push_back(s.flops_per_s() / fp8_peak / curve(s));
  if (!fp8_ratio.empty()) c.efficiency.gemm_fp8_scale = median(fp8_ratio);

  if (m.copy_bytes_per_s > 0 && acc.memory_bandwidth_bytes_per_s > 0)
    c.efficiency.hbm_eff = m.copy_bytes_per_s / acc.memory_bandwidth_bytes_per_s;

  // A generation's serving GEMM rate (infer_gemm_max, fitted on serving TTFTs: docs/inference-model.md)
  // states what serving GEMMs reach against the training fit's large GEMMs. The probe measures this
  // machine's large GEMMs, so the serving rate scales by the same ratio: the measurement reaches
  // `infer` and `validate` too instead of being overridden by the generation's serving fit. (The
  // serving HBM rate, infer_hbm_eff, is fitted on decode steps and kept: a copy kernel is not one.)
  if (base.infer_gemm_max > 0 && base.gemm_max > 0)
    c.efficiency.infer_gemm_max = std::clamp(base.infer_gemm_max * c.efficiency.gemm_max / base.gemm_max, 0.01, 1.0);

  for (const auto& s : m.gemms)
    c.comparisons.push_back({fmt::format("{} gemm {}x{}x{}", s.format, s.m, s.n, s.k), s.flops_per_s(),
                             peak_for(acc, s.format), "FLOP/s"});
  if (m.copy_bytes_per_s > 0)
    c.comparisons.push_back({"hbm copy (read+write)", m.copy_bytes_per_s, acc.memory_bandwidth_bytes_per_s, "B/s"});
  if (m.read_bytes_per_s > 0)
    c.comparisons.push_back({"hbm read-only kernel", m.read_bytes_per_s, acc.memory_bandwidth_bytes_per_s, "B/s"});

  if (m.gemm_power_w) {
    const GemmSample* largest = bf16[0];
    for (const auto* s : bf16)
      if (s->flops_per_s() > largest->flops_per_s()) largest = s;
    c.joules_per_flop = *m.gemm_power_w / largest->flops_per_s();
    if (acc.tdp_w > 0) c.comparisons.push_back({"power during bf16 gemm", *m.gemm_power_w, acc.tdp_w, "W"});
  }
  c.efficiency.fitted_on = fmt::format("gpuplan probe on {} ({} GEMM samples)", m.device_name, m.gemms.size());
  c.efficiency.fitted_date = date;
  c.efficiency.method =
      "gpuplan probe: cuBLASLt GEMM medians fitted to gemm_max*d/(d+gemm_half_dim); hbm_eff from D2D copy";
  c.efficiency.origin = "probe";
  return c;
}

std::string calibration_yaml(const Calibration& c, const ProbeMeasurements& m, const Accelerator& acc) {
  std::string header = fmt::format(
      "Calibration measured by `gpuplan probe` on {} (catalog '{}', sm_{}).\n"
      "A catalog overlay: `gpuplan train --catalog DIR` with this file in DIR uses these values in place of\n"
      "the fitted '{}' defaults. Measured against datasheet:\n",
      m.device_name, acc.name, m.compute_capability, acc.generation);
  for (const auto& r : c.comparisons)
    header += fmt::format("  {}: {:.4g} of {:.4g} {} ({:.1f}%)\n", r.figure, r.measured, r.datasheet, r.unit,
                          r.datasheet > 0 ? 100 * r.measured / r.datasheet : 0.0);
  if (c.joules_per_flop) header += fmt::format("  bf16 energy: {:.3g} J/FLOP\n", *c.joules_per_flop);
  return efficiencies_to_yaml({c.efficiency}, header);
}

}  // namespace gpuplan::doctor
