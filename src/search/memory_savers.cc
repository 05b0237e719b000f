#include "search/memory_savers.h"

#include "training/training_step.h"

namespace gpuplan {

namespace {

// The fewest of 1..n layers for which fits(layers) holds, given that fits(n) holds and that fits is
// monotone in the layer count.
template <class Fits>
int fewest_layers(int n, Fits fits) {
  int lo = 1, hi = n;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (fits(mid)) hi = mid;
    else lo = mid + 1;
  }
  return hi;
}

// fit_memory_savers on a model of `p`'s memory, in totals (the probes need no more).
TrainingMemoryTotals fit_layers(const TrainingMemoryModel& model, const ModelArch& m, const Hardware& hw,
                                TrainingPlan& p, const MemorySavers& savers) {
  const TrainingMemoryTotals mem = model.totals(p.recompute_layers, p.offload_layers);
  const int chunk_layers = (m.layers + p.pp * p.vp - 1) / (p.pp * p.vp);
  if (p.recompute == Recompute::full) {
    if (!savers.partial_recompute || p.recompute_layers != 0 || !mem.fits) return mem;
    const int layers = fewest_layers(chunk_layers, [&](int n) { return model.fits(n, p.offload_layers); });
    if (layers >= chunk_layers) return mem;
    p.recompute_layers = layers;
    return model.totals(p.recompute_layers, p.offload_layers);
  }
  if (!savers.offload || mem.fits || p.offload_layers != 0 || hw.accelerator.host_link_bytes_per_s <= 0) return mem;
  // Offloading more layers frees HBM and fills host memory: the fewest layers that fit HBM is also the
  // plan's best chance in host memory, so the bisection asks HBM alone and the result is then judged
  // whole (host included).
  if (!model.fits_hbm(p.recompute_layers, chunk_layers)) return mem;
  p.offload_layers = fewest_layers(chunk_layers, [&](int n) { return model.fits_hbm(p.recompute_layers, n); });
  return model.totals(p.recompute_layers, p.offload_layers);
}

}  // namespace

TrainingMemory fit_memory_savers(const ModelArch& m, const Hardware& hw, TrainingPlan& p, const TrainingWorkload& w,
                                 const MemoryOptions& options, const MemorySavers& savers) {
  const MemoryOptions mo = with_capacities(options, hw);
  const TrainingMemoryModel model(m, p, w, mo);
  fit_layers(model, m, hw, p, savers);
  return model.memory(p.recompute_layers, p.offload_layers);
}

TrainingMemoryTotals fit_memory_saver_totals(const ModelArch& m, const Hardware& hw, TrainingPlan& p,
                                             const TrainingWorkload& w, const MemoryOptions& options,
                                             const MemorySavers& savers) {
  const MemoryOptions mo = with_capacities(options, hw);
  return fit_layers(TrainingMemoryModel(m, p, w, mo), m, hw, p, savers);
}

}  // namespace gpuplan
