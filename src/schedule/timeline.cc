#include "schedule/timeline.h"

#include <algorithm>
#include <cmath>

namespace gpuplan::schedule {

UtilisationTimeline utilisation_timeline(const std::vector<JobRecord>& records, int cluster_gpus, int bins) {
  UtilisationTimeline out;
  double first = 0, last = 0;
  bool any = false;
  for (const JobRecord& r : records) {
    if (r.end_s < 0) continue;
    if (!any || r.submit_s < first) first = r.submit_s;
    if (!any || r.end_s > last) last = r.end_s;
    any = true;
  }
  if (!any || bins < 1 || cluster_gpus < 1 || last <= first) return out;
  out.bin_s = (last - first) / bins;
  std::vector<double> busy(static_cast<std::size_t>(bins), 0.0);
  for (const JobRecord& r : records) {
    if (r.end_s < 0) continue;
    const double start = r.preemptions == 0 ? r.first_start_s : r.end_s - r.run_s;
    const double a = std::max(start, first) - first, b = r.end_s - first;
    if (b <= a) continue;
    const int k0 = std::clamp(static_cast<int>(std::floor(a / out.bin_s)), 0, bins - 1);
    const int k1 = std::clamp(static_cast<int>(std::floor(b / out.bin_s)), 0, bins - 1);
    for (int k = k0; k <= k1; ++k) {
      const double lo = std::max(a, k * out.bin_s), hi = std::min(b, (k + 1) * out.bin_s);
      if (hi > lo) busy[static_cast<std::size_t>(k)] += r.gpus * (hi - lo);
    }
  }
  for (int k = 0; k < bins; ++k) {
    out.t_s.push_back((k + 0.5) * out.bin_s);
    out.utilisation.push_back(busy[static_cast<std::size_t>(k)] / (cluster_gpus * out.bin_s));
  }
  return out;
}

}  // namespace gpuplan::schedule
