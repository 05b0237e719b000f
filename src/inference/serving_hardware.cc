// The hardware a serving step runs on: the part's tensor rate bounded by its board power, and the
// serving efficiencies in place of the training fit's (serving_hardware, inference/inference.h).
#include <algorithm>

#include "inference/inference.h"

namespace gpuplan {

namespace {

// The efficiencies an inference step runs at: the training fit's GEMM and attention values, with the
// serving parameters (infer_*) in place of HBM streaming and per-kernel overhead.
// Board power bounds sustained tensor throughput. The fitted GEMM efficiencies describe the
// generation's reference part, which holds its clocks under load within its TDP: its board power
// per dense BF16 TFLOP/s (datasheet TDP / peak, data/catalog/accelerators.yaml) is the energy the
// generation spends per FLOP at full rate. A part of the same generation with less power per peak
// FLOP (H100 NVL 400 W and H100 PCIe 350 W against the H100 SXM's 700 W for 84% / 76% of its rate;
// MI300X 750 W against the MI325X's 1000 W for the same rate) runs its tensor cores at most at
// tdp / (peak x reference W per FLOP) of its peak: first order, at constant energy per FLOP.
// Voltage scaling at lower clocks (less energy per FLOP) makes the real limit milder, the HBM's and
// the static share of the budget make it harsher. Reference parts: the generation's full-die,
// GPU-only part with the most power per peak FLOP (superchip modules such as GH200/GB200 count the
// CPU in their TDP and are not references; cut-down dies such as the H20 are never limited).
double power_limited_share(const Accelerator& a) {
  struct Ref {
    const char* generation;
    double watts, bf16_tflops;  // reference part's TDP and dense BF16 peak
  };
  static constexpr Ref kRefs[] = {
      {"ampere", 400, 312},           // A100 SXM4
      {"ada", 350, 362.05},           // L40S
      {"hopper", 700, 989.5},         // H100 SXM5 / H200 SXM
      {"blackwell", 1000, 2250},      // B200 (HGX)
      {"blackwell_ultra", 1100, 2250},  // B300 (HGX)
      {"cdna3", 1000, 1307.4},        // MI325X
  };
  const double peak = a.peak(MathFormat::bf16) / 1e12;
  if (a.tdp_w <= 0 || peak <= 0) return 1.0;
  for (const Ref& r : kRefs) {
    if (a.generation != r.generation) continue;
    return std::min(1.0, a.tdp_w / (peak * r.watts / r.bf16_tflops));
  }
  return 1.0;
}


}  // namespace

Hardware serving_hardware(const Hardware& hw) {
  Hardware h = hw;
  const double share = power_limited_share(h.accelerator);
  for (auto& [fmt, rate] : h.accelerator.peak_flops) rate *= share;
  Efficiency& e = h.efficiency;
  e.hbm_eff = e.infer_hbm_eff;
  e.kernel_overhead_s = e.infer_kernel_overhead_s;
  // A serving GEMM rate fitted on TTFT (calibrate --inference --prefill --params infer_gemm_max)
  // where the generation states one: serving GEMMs run at it, not at the training fit's. (The MLA
  // prefill attention rate applies in the step, to MLA prompts only: stage_step.)
  if (e.infer_gemm_max > 0) e.gemm_max = e.infer_gemm_max;
  return h;
}

}  // namespace gpuplan
