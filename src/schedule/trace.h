#pragma once
// Job traces: the Philly trace (Jeon et al., "Analysis of Large-Scale Multi-Tenant GPU Clusters for DNN
// Training Workloads", USENIX ATC 2019; CC-BY 4.0, as packaged by the Pollux artifact), gpuplan's own
// CSV format, and a seeded generated LLM job mix. Format: docs/schedule.md.
#include <cstdint>
#include <string>
#include <vector>

#include "schedule/job.h"

namespace gpuplan::schedule {

// Parses a trace CSV; the header decides the format:
//   Philly:  timestamp,duration,num_gpus,gpu_time,cluster   ("YYYY-MM-DD HH:MM:SS", seconds, GPUs)
//   gpuplan: submit_s,duration_s,gpus[,group_gpus[,kind[,preemptible]]]
// Jobs are returned sorted by submit time (ties keep file order), submit times shifted so the first is
// 0, ids numbered in that order. Philly jobs are data-parallel: one group of all their GPUs.
// `origin` names the file in errors; bad rows throw InputError naming origin:line and the column.
std::vector<Job> parse_trace_csv(const std::string& text, const std::string& origin);
std::vector<Job> read_trace_file(const std::string& path);
// Writes jobs in the gpuplan format (round-trips through parse_trace_csv).
std::string write_trace_csv(const std::vector<Job>& jobs);

struct MixOptions {
  uint64_t seed = 1;
  int jobs = 2000;
  int cluster_gpus = 1024;   // sizes the arrival rate and caps job sizes
  double offered_load = 0.9; // GPU-seconds demanded / (cluster GPUs x arrival span)
  bool preemptible_inference = true;
};
// A generated LLM job mix, deterministic for a seed on every platform: 10% pre-training (64-4,096
// GPUs, capped at the cluster; groups TP=8 dense or TP x EP = 32/64 for MoE; median 24 h), 30%
// fine-tunes (8-64 GPUs, TP=8 groups; median 4 h), 60% inference services (1-32 GPUs, one group
// per replica; median 12 h). Poisson arrivals at the offered load.
std::vector<Job> generate_llm_mix(const MixOptions& opts);

}  // namespace gpuplan::schedule
