#include "schedule/metrics.h"

#include <algorithm>
#include <cmath>

namespace gpuplan::schedule {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

Metrics summarise(const std::vector<JobRecord>& records, int cluster_gpus, int skipped, double fragmented_gpu_s) {
  Metrics m;
  m.skipped = skipped;
  std::vector<double> jct, wait;
  double first = 0, last = 0, busy_gpu_s = 0, lost_gpu_s = 0;
  bool any = false;
  for (const JobRecord& r : records) {
    if (r.end_s < 0) continue;
    ++m.jobs;
    if (!any || r.submit_s < first) first = r.submit_s;
    if (!any || r.end_s > last) last = r.end_s;
    any = true;
    jct.push_back(r.end_s - r.submit_s);
    wait.push_back(r.first_start_s - r.submit_s);
    busy_gpu_s += r.gpus * r.run_s;
    // Time held beyond the base duration is the slowdown's cost (pre-emption loses no work here).
    lost_gpu_s += r.gpus * std::max(0.0, r.run_s - r.base_duration_s);
    if (r.gpus > 1) {
      ++m.multi_gpu_jobs;
      if (r.domains == 1) ++m.one_domain_jobs;
    }
    if (r.split_groups > 0) ++m.split_jobs;
    m.preemptions += r.preemptions;
  }
  m.makespan_s = last - first;
  const double capacity = static_cast<double>(cluster_gpus) * m.makespan_s;
  m.utilisation = capacity > 0 ? busy_gpu_s / capacity : 0;
  m.fragmentation = capacity > 0 ? fragmented_gpu_s / capacity : 0;
  double sj = 0, sw = 0;
  for (double x : jct) sj += x;
  for (double x : wait) sw += x;
  m.avg_jct_s = jct.empty() ? 0 : sj / static_cast<double>(jct.size());
  m.avg_wait_s = wait.empty() ? 0 : sw / static_cast<double>(wait.size());
  m.p99_jct_s = quantile(std::move(jct), 0.99);
  m.p99_wait_s = quantile(std::move(wait), 0.99);
  m.one_domain_share = m.multi_gpu_jobs ? static_cast<double>(m.one_domain_jobs) / m.multi_gpu_jobs : 1.0;
  m.gpu_hours = busy_gpu_s / 3600.0;
  m.gpu_hours_lost = lost_gpu_s / 3600.0;
  return m;
}

}  // namespace gpuplan::schedule
