#pragma once
// Goodput of a synchronous training job under failures: job failure rate from per-class rates and the
// job's shape, the blast radius of each failure, checkpoint cost, the Young/Daly checkpoint interval,
// and the time and cost to finish a run, with and without spare units. Pure functions.
#include <string>
#include <vector>

#include "deploy/failures.h"
#include "memory/violation.h"

namespace gpuplan::deploy {

// Young (1974), "A first order approximation to the optimum checkpoint interval": sqrt(2 * delta * M).
double young_interval_s(double checkpoint_s, double mtbf_s);
// Daly (2006), "A higher order estimate of the optimum checkpoint interval for restart dumps", eq. 37:
// sqrt(2 d M) * (1 + sqrt(d / 2M) / 3 + d / 18M) - d for d < 2M; M otherwise.
double daly_interval_s(double checkpoint_s, double mtbf_s);
// Fraction of wall time spent on useful training with compute interval tau between checkpoints of
// cost delta, mean time from a failure to training again R (restart, plus any wait for repair) and job
// MTBF M. Failures are Poisson at rate 1/M while the job runs (the rates are measured per hour of
// running: arXiv:2407.21783 counts interruptions of a running job), none while it is down; each failure
// loses the work since the last checkpoint and R. The expected wall time of one interval of tau + delta
// is then (M + R)(e^((tau + delta)/M) - 1) (the exponential model of Daly 2006, without failures during
// the restart), so
//   goodput = tau / ((M + R)(e^((tau + delta)/M) - 1))
// which is tau / (tau + delta) x (1 - (R + (tau + delta)/2) / M) to first order, stays above zero when R
// outgrows M (the job waits; it still makes progress between failures), and whose best tau does not
// depend on R (Daly's interval serves with spares and without).
double goodput_fraction(double interval_s, double checkpoint_s, double restart_s, double mtbf_s);

// Where the wall time goes at that operating point; the four shares add up to 1.
struct TimeShares {
  double useful = 0;      // tau / E
  double checkpoint = 0;  // delta / E: writing checkpoints that are kept
  double down = 0;        // R / (M + R): restarting, or waiting for repair
  double rework = 0;      // the rest: work since the last checkpoint, lost at each failure
};
TimeShares time_shares(double interval_s, double checkpoint_s, double restart_s, double mtbf_s);

// The job as failures see it.
struct JobShape {
  int gpus = 8;
  int gpus_per_node = 8;     // HGX: 8; NVL72 compute tray: 4
  int domain_gpus = 8;       // NVLink domain
  int unit_gpus = 8;         // system unit a spare is bought in: HGX node, NVL72 rack
  int group_gpus = 1;        // GPUs one model-parallel group needs inside a domain (tp * cp * ep)
};

// GPUs a failure of `blast` kind takes away from the job: none 0; domain the whole domain; node the
// node plus whatever of its domain can no longer hold a whole group:
//   domain - floor((domain - node) / group) * group   (HGX: the node; NVL72 with 72-GPU groups: 72)
int blast_gpus(Blast blast, const JobShape& shape);

struct ClassRate {
  std::string name;
  double failures_per_hour = 0;  // for the whole job
  int blast_gpus = 0;
  double repair_s = 0;
  std::string source;
};

struct GoodputInputs {
  JobShape shape;
  double params = 0;              // model parameters (checkpoint size = params * bytes per param)
  double checkpoint_s = 0;        // > 0: overrides the write time derived from size and bandwidth
  double tokens_per_s = 0;        // failure-free training throughput of the job
  double tokens = 0;              // run length to finish
  double usd_per_gpu_hour = 0;    // 0: no cost
};

struct Scenario {
  double restart_s = 0;           // mean time per failure before training resumes (restart, repair wait)
  double goodput = 0;             // useful time / wall time
  TimeShares shares;              // where the wall time goes
  double effective_tokens_per_s = 0;  // failure-free tokens/s x goodput
  double wall_s = 0;              // to finish the run
  int spare_units = 0;
  int spare_gpus = 0;
  double gpu_hours = 0;           // (job + spare GPUs) x wall
  double cost_usd = 0;
};

struct GoodputResult {
  std::vector<Violation> violations;
  std::vector<ClassRate> classes;
  double failures_per_hour = 0;    // the job's
  double mtbf_s = 0;               // the job's
  double checkpoint_bytes = 0;
  double checkpoint_s = 0;
  double young_interval_s = 0;
  double daly_interval_s = 0;      // the interval used
  double useful_s = 0;             // tokens / tokens_per_s
  double hardware_down_units = 0;  // mean failures under repair at once (no spares)
  double spare_gpus_needed = 0;    // 99th-percentile concurrent failures x mean blast radius, GPUs
  Scenario with_spares;            // restart on a spare: only the restart time is lost
  Scenario without_spares;         // wait for the repair of whatever the failure drained
  double mean_repair_s = 0;        // failure-weighted repair time (software failures count 0)
  // The goodput a training run is charged at by `cost` and `recommend`: restarts on spare units
  // (with_spares), 1 where it gives none.
  double charged() const { return with_spares.goodput > 0 ? with_spares.goodput : 1.0; }
};

// Spares: k = the 99th percentile of Poisson(hardware_down_units) concurrent failures, times the mean
// blast radius in GPUs, rounded up to whole system units (at least 1).
GoodputResult evaluate_goodput(const FailureModel& failures, const GoodputInputs& in);

// A training run under the built-in failure model, as `cost` and `recommend` charge it (one answer for
// one run; GoodputResult::charged): a job of `shape` training a model of `params` parameters at
// `tokens_per_s` failure-free for `tokens`.
GoodputResult training_run_goodput(const JobShape& shape, double params, double tokens_per_s, double tokens);

}  // namespace gpuplan::deploy
