#include "physics/compute.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpuplan {

double peak_flops(const Accelerator& a, MathFormat format) {
  // A recipe asking for a format the chip lacks runs at the next wider one it has.
  switch (format) {
    case MathFormat::fp4:
      if (a.peak(MathFormat::fp4) > 0) return a.peak(MathFormat::fp4);
      [[fallthrough]];
    case MathFormat::fp6:
      if (format == MathFormat::fp6 && a.peak(MathFormat::fp6) > 0) return a.peak(MathFormat::fp6);
      [[fallthrough]];
    case MathFormat::fp8:
      if (a.peak(MathFormat::fp8) > 0) return a.peak(MathFormat::fp8);
      [[fallthrough]];
    default:
      if (a.peak(format) > 0) return a.peak(format);
      return a.peak(MathFormat::bf16) > 0 ? a.peak(MathFormat::bf16) : a.peak(MathFormat::fp32);
  }
}

MathFormat executed_format(const Accelerator& a, MathFormat wanted) {
  if (a.peak(wanted) > 0) return wanted;
  if (wanted == MathFormat::fp6 && a.peak(MathFormat::fp8) > 0) return MathFormat::fp8;
  if (a.peak(MathFormat::bf16) > 0) return MathFormat::bf16;
  return wanted;
}

std::string format_list(const Accelerator& a) {
  std::string out;
  for (MathFormat f : {MathFormat::fp4, MathFormat::fp6, MathFormat::fp8, MathFormat::int8, MathFormat::bf16,
                       MathFormat::tf32, MathFormat::fp32, MathFormat::fp64})
    if (a.peak(f) > 0) out += (out.empty() ? "" : ", ") + std::string(to_string(f));
  return out.empty() ? "none listed" : out;
}

std::string unsupported_precision(const Accelerator& a, Precision p) {
  const MathFormat want = gemm_format(p);
  if (a.peak(want) > 0) return {};
  return fmt::format("{} needs {} tensor cores, which {} lacks (it has {})", to_string(p), to_string(want),
                     a.display_name.empty() ? a.name : a.display_name, format_list(a));
}

std::string serving_refusal(const Accelerator& a, Precision p) {
  return a.peak(executed_format(a, gemm_format(p))) > 0 ? std::string() : unsupported_precision(a, p);
}

std::string serving_fallback_note(const Accelerator& a, Precision p) {
  const MathFormat want = gemm_format(p);
  if (a.peak(want) > 0) return {};
  return fmt::format("{} has no {} tensor cores (it has {}): weights stored in {}, math in {}",
                     a.display_name.empty() ? a.name : a.display_name, to_string(want), format_list(a), to_string(p),
                     to_string(executed_format(a, want)));
}

std::string fp8_attention_refusal(const Accelerator& a) {
  if (executed_format(a, MathFormat::fp8) == MathFormat::fp8) return {};
  return fmt::format("{} has no FP8 tensor cores (bf16 is what it runs)", a.display_name.empty() ? a.name : a.display_name);
}

double gemm_efficiency(const Efficiency& e, double m, double n, double k) {
  // Tile quantization: output tiles of 128x128 and k steps of 64 (CUTLASS/cuBLAS Hopper defaults);
  // a dimension that is not a multiple pays for the padded tile.
  auto pad = [](double d, double tile) { return std::ceil(d / tile) * tile; };
  const double tile = (m * n * k) / (pad(m, 128) * pad(n, 128) * pad(k, 64));
  // Roll-off for small dimensions: a GEMM with few rows (tokens), few columns or a short reduction
  // spends a larger share of its time in prologue/epilogue, operand traffic and launch latency
  // than in tensor-core math; each dimension d costs a factor of about half_dim/d.
  const double rolloff = 1.0 / (1.0 + e.gemm_half_dim / m + e.gemm_half_dim / n + e.gemm_half_dim / k);
  return e.gemm_max * tile * rolloff;
}

namespace {
// One GEMM's device time, without any launch or issue overhead: the larger of its tensor-core time
// and its operands' HBM traffic.
double gemm_device_s(const Hardware& hw, MathFormat format, double m, double n, double k) {
  const Efficiency& e = hw.efficiency;
  double scale = 1.0;
  double elem_bytes = 2.0;
  format = executed_format(hw.accelerator, format);  // never the peak or scale of a unit the chip lacks
  if (format == MathFormat::fp8 || format == MathFormat::fp6) {
    scale = e.gemm_fp8_scale;
    elem_bytes = 1.0;
  } else if (format == MathFormat::fp4) {
    scale = e.gemm_fp4_scale;
    elem_bytes = 0.5;
  }
  const double rate = peak_flops(hw.accelerator, format) * gemm_efficiency(e, m, n, k) * scale;
  const double t_math = 2.0 * m * n * k / rate;
  // Operands in the GEMM's format, output in bf16.
  const double bytes = (m * k + k * n) * elem_bytes + m * n * 2.0;
  const double t_mem = bytes / (hw.accelerator.memory_bandwidth_bytes_per_s * e.hbm_eff);
  return std::max(t_math, t_mem);
}
}  // namespace

double gemm_time_s(const Hardware& hw, MathFormat format, double m, double n, double k, double count) {
  if (m <= 0 || n <= 0 || k <= 0 || count <= 0) return 0.0;
  return count * (gemm_device_s(hw, format, m, n, k) + hw.efficiency.kernel_overhead_s);
}

double grouped_gemm_time_s(const Hardware& hw, MathFormat format, double rows_per_expert, double n, double k,
                           double experts) {
  if (rows_per_expert <= 0 || n <= 0 || k <= 0 || experts <= 0) return 0.0;
  return experts * (gemm_device_s(hw, format, rows_per_expert, n, k) + hw.efficiency.expert_gemm_overhead_s);
}

double attention_time_s(const Hardware& hw, double flops) {
  if (flops <= 0) return 0.0;
  return flops / (peak_flops(hw.accelerator, MathFormat::bf16) * hw.efficiency.attention_eff);
}

double memory_bound_time_s(const Hardware& hw, double bytes) {
  if (bytes <= 0) return 0.0;
  return bytes / (hw.accelerator.memory_bandwidth_bytes_per_s * hw.efficiency.hbm_eff);
}

}  // namespace gpuplan
