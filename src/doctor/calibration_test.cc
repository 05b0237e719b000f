#include "doctor/calibration.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace gpuplan::doctor {
namespace {

// Samples that follow the model curve exactly: achieved = peak * max * d / (d + half).
ProbeMeasurements synthetic(const Accelerator& acc, double gemm_max, double half, double fp8_scale) {
  ProbeMeasurements m;
  m.device_name = "NVIDIA H200";
  m.compute_capability = 90;
  const long shapes[][3] = {{1024, 1024, 1024}, {4096, 4096, 4096}, {8192, 8192, 8192},
                            {128, 8192, 8192},  {512, 8192, 8192},  {8192, 1024, 8192}};
  for (const auto& s : shapes)
    for (const char* f : {"bf16", "fp8"}) {
      const double d = static_cast<double>(std::min({s[0], s[1], s[2]}));
      const double peak = std::string(f) == "bf16" ? acc.peak(MathFormat::bf16) : acc.peak(MathFormat::fp8);
      const double eff = gemm_max * d / (d + half) * (std::string(f) == "fp8" ? fp8_scale : 1.0);
      GemmSample g{f, s[0], s[1], s[2], 0};
      g.median_s = 2.0 * double(s[0]) * double(s[1]) * double(s[2]) / (peak * eff);
      m.gemms.push_back(g);
    }
  m.copy_bytes_per_s = 0.9 * acc.memory_bandwidth_bytes_per_s;
  m.read_bytes_per_s = 0.92 * acc.memory_bandwidth_bytes_per_s;
  m.gemm_power_w = 650;
  return m;
}

TEST(Calibration, RecoversTheCurve) {
  const Catalog cat = Catalog::builtin();
  const auto& acc = cat.accelerator("h200-sxm");
  const auto c = fit_calibration(synthetic(acc, 0.80, 96, 0.7), acc, cat.efficiency(acc.generation), "2026-11-29");
  EXPECT_NEAR(c.efficiency.gemm_max, 0.80, 1e-6);
  EXPECT_NEAR(c.efficiency.gemm_half_dim, 96, 1e-6);
  EXPECT_NEAR(c.efficiency.gemm_fp8_scale, 0.7, 1e-6);
  EXPECT_NEAR(c.efficiency.hbm_eff, 0.9, 1e-9);
  EXPECT_EQ(c.efficiency.generation, "hopper");
  // Untouched fields keep the catalog's fitted values.
  EXPECT_EQ(c.efficiency.scaleup_eff, cat.efficiency("hopper").scaleup_eff);
  EXPECT_EQ(c.comparisons.size(), 12u + 2 + 1);
  ASSERT_TRUE(c.joules_per_flop.has_value());
  EXPECT_GT(*c.joules_per_flop, 0);
}

TEST(Calibration, YamlIsACatalogOverlay) {
  Catalog cat = Catalog::builtin();
  const auto& acc = cat.accelerator("h200-sxm");
  const auto m = synthetic(acc, 0.75, 200, 0.8);
  const auto c = fit_calibration(m, acc, cat.efficiency(acc.generation), "2026-11-29");
  const std::string yaml = calibration_yaml(c, m, acc);
  EXPECT_NE(yaml.find("# Calibration measured by `gpuplan probe` on NVIDIA H200"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("hbm copy (read+write)"), std::string::npos) << yaml;
  Catalog overlay = Catalog::builtin();
  overlay.merge_yaml(yaml, "probe.yaml");
  EXPECT_NEAR(overlay.efficiency("hopper").gemm_max, 0.75, 1e-3);
  EXPECT_NEAR(overlay.efficiency("hopper").gemm_half_dim, 200, 1e-3);
  EXPECT_NEAR(overlay.efficiency("hopper").gemm_fp8_scale, 0.8, 1e-3);
}

// The serving GEMM rate (infer_gemm_max) keeps its ratio to the training fit's gemm_max, applied to what
// the probe measured: a faster machine is faster in `infer` too, not only in `train`.
TEST(Calibration, MeasuredRatesReachTheServingParameters) {
  const Catalog cat = Catalog::builtin();
  const auto& acc = cat.accelerator("h200-sxm");
  Efficiency base = cat.efficiency(acc.generation);
  base.infer_gemm_max = 0.5 * base.gemm_max;
  const auto c = fit_calibration(synthetic(acc, 0.80, 96, 0.7), acc, base, "2026-11-29");
  EXPECT_NEAR(c.efficiency.infer_gemm_max, 0.5 * 0.80, 1e-6);
  base.infer_gemm_max = 0;  // no serving GEMM fit: serving GEMMs use the measured gemm_max itself
  EXPECT_EQ(fit_calibration(synthetic(acc, 0.80, 96, 0.7), acc, base, "2026-11-29").efficiency.infer_gemm_max, 0);
}

TEST(Calibration, NeedsBf16Samples) {
  const Catalog cat = Catalog::builtin();
  const auto& acc = cat.accelerator("h200-sxm");
  ProbeMeasurements m;
  EXPECT_THROW(fit_calibration(m, acc, cat.efficiency("hopper"), ""), InputError);
}

}  // namespace
}  // namespace gpuplan::doctor
