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

}  // namespace

TrainingMemory fit_memory_savers(const ModelArch& m, const Hardware& hw, TrainingPlan& p, const TrainingWorkload& w,
                                 const MemoryOptions& options, const MemorySavers& savers) {
  const MemoryOptions mo = with_capacities(options, hw);
  TrainingMemory mem = training_memory(m, p, w, mo);
  const int chunk_layers = (m.layers + p.pp * p.vp - 1) / (p.pp * p.vp);
  if (p.recompute == Recompute::full) {
    if (!savers.partial_recompute || p.recompute_layers != 0 || !mem.fits) return mem;
    TrainingPlan q = p;
    const int layers = fewest_layers(chunk_layers, [&](int n) {
      q.recompute_layers = n;
      return training_memory(m, q, w, mo).fits;
    });
    if (layers >= chunk_layers) return mem;
    p.recompute_layers = layers;
    return training_memory(m, p, w, mo);
  }
  if (!savers.offload || mem.fits || p.offload_layers != 0 || hw.accelerator.host_link_bytes_per_s <= 0) return mem;
  // Offloading more layers frees HBM and fills host memory: the fewest layers that fit HBM is also the
  // plan's best chance in host memory, so the bisection asks HBM alone and the result is then judged
  // whole (host included).
  auto hbm_fits = [&](const TrainingMemory& x) { return mo.capacity_bytes <= 0 || x.total_bytes <= mo.capacity_bytes; };
  TrainingPlan q = p;
  q.offload_layers = chunk_layers;
  if (!hbm_fits(training_memory(m, q, w, mo))) return mem;
  p.offload_layers = fewest_layers(chunk_layers, [&](int n) {
    q.offload_layers = n;
    return hbm_fits(training_memory(m, q, w, mo));
  });
  return training_memory(m, p, w, mo);
}

}  // namespace gpuplan
