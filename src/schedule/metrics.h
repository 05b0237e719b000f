#pragma once
// What a schedule achieved: per-job records and the per-policy summary of a simulation.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gpuplan::schedule {

struct JobRecord {
  int job = 0;                 // Job::id
  int gpus = 0;
  double submit_s = 0;
  double first_start_s = -1;   // first time it ran (queueing delay = first_start_s - submit_s)
  double end_s = -1;           // completion
  double base_duration_s = 0;  // run time when placed well
  double run_s = 0;            // time it held GPUs (all segments)
  double slowdown = 1;         // factor of the last segment
  int domains = 0;             // NVLink domains touched (last segment)
  int split_groups = 0;        // groups spanning more domains than needed (last segment)
  int preemptions = 0;
  std::vector<std::pair<int, uint32_t>> gpus_held;  // (node, GPU mask) of the last segment
};

struct Metrics {
  int jobs = 0;                    // completed
  int skipped = 0;                 // larger than the cluster, never run (reported, not hidden)
  double utilisation = 0;          // busy GPU-seconds / (cluster GPUs x makespan)
  double avg_jct_s = 0, p99_jct_s = 0;    // completion time: end - submit
  double avg_wait_s = 0, p99_wait_s = 0;  // queueing delay: first start - submit
  double makespan_s = 0;           // last completion - first submit
  double fragmentation = 0;        // GPU-seconds free while jobs waited and none of them fit / (GPUs x makespan)
  double one_domain_share = 0;     // multi-GPU jobs that ran inside one NVLink domain / multi-GPU jobs
  int multi_gpu_jobs = 0;
  int one_domain_jobs = 0;
  int split_jobs = 0;              // jobs with a split group (slowed)
  double gpu_hours = 0;            // GPU-hours held by jobs
  double gpu_hours_lost = 0;       // GPU-hours lost to cross-domain slowdown
  int preemptions = 0;
};

// Summary of records; `fragmented_gpu_s` is integrated by the simulator.
Metrics summarise(const std::vector<JobRecord>& records, int cluster_gpus, int skipped, double fragmented_gpu_s);

// q-quantile (0..1) by linear interpolation; 0 for an empty set.
double quantile(std::vector<double> v, double q);

}  // namespace gpuplan::schedule
