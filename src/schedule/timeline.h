#pragma once
// Utilisation over time of a replay: the share of the cluster's GPUs busy in equal intervals from the
// first submission to the last completion (the window Metrics::utilisation averages over). Pure.
#include <vector>

#include "schedule/metrics.h"

namespace gpuplan::schedule {

struct UtilisationTimeline {
  double bin_s = 0;                  // interval length
  std::vector<double> t_s;           // interval mid-points, seconds since the first submission
  std::vector<double> utilisation;   // busy GPU-seconds / (cluster GPUs x bin_s) in each interval
};

// A job holds its GPUs from its first start to its end; a pre-empted job's segments are not recorded
// one by one, so its run time (run_s) is drawn as one span ending at its end.
UtilisationTimeline utilisation_timeline(const std::vector<JobRecord>& records, int cluster_gpus, int bins);

}  // namespace gpuplan::schedule
