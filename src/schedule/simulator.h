#pragma once
// Event-driven replay of a trace on a cluster under a placement policy: a FIFO queue, optional EASY
// backfill and optional pre-emption of inference services by training. Pure: no I/O.
#include <functional>
#include <string>
#include <vector>

#include "schedule/cluster.h"
#include "schedule/job.h"
#include "schedule/metrics.h"
#include "schedule/policy.h"
#include "schedule/slowdown.h"

namespace gpuplan::schedule {

struct SimOptions {
  // EASY backfill (Lifka 1995; Mu'alem & Feitelson 2001): the queue head gets a reservation at the
  // earliest time enough GPUs free up (counted in GPUs); later jobs may start now if they end before
  // it or use only GPUs the head will not need. Run times are taken as exact estimates.
  bool backfill = false;
  // Training that cannot start evicts running preemptible jobs (youngest first); they re-queue at the
  // tail and keep the work done.
  bool preempt = false;
  // Queued jobs examined per backfill pass, like Slurm's bf_max_job_test (default 500 there).
  int backfill_depth = 1000;
  SlowdownModel slowdown = default_slowdown();
  // Called with the fraction of jobs that have arrived, at most ~200 times per run.
  std::function<void(double)> progress;
};

struct SimResult {
  std::string policy;  // "domain-aware", with "+backfill" when on
  std::vector<JobRecord> records;  // one per job run, in job order
  std::vector<int> skipped;        // ids of jobs larger than the cluster (never run)
  Metrics metrics;
};

// Replays `jobs` (sorted by submit time, as trace.h returns them). Jobs needing more GPUs than the
// cluster has are skipped and listed, never silently dropped.
SimResult simulate(const Cluster& cluster, const std::vector<Job>& jobs, const PlacementPolicy& policy,
                   const SimOptions& options = {});

}  // namespace gpuplan::schedule
