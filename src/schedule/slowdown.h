#pragma once
// How much slower a job runs when its tightly coupled groups leave their NVLink domain. A small
// interface so the training model (src/training) can be plugged in later; until then the default
// below, derived from the bandwidth ratio of NVLink to the scale-out network.
#include <functional>

#include "schedule/job.h"
#include "schedule/state.h"

namespace gpuplan::schedule {

// Returns the factor (>= 1) by which `job`'s run time grows under a placement of `shape`.
using SlowdownModel = std::function<double(const Job& job, const PlacementShape& shape)>;

// Default: a job with any split group runs 1 + comm_share * (bandwidth_ratio - 1) times longer.
// Ring and all-to-all collectives over a group run at the speed of their slowest link, so once a group
// crosses domains its communication runs at scale-out speed, however few ranks are outside.
// bandwidth_ratio 9: NVLink 5 gives 900 GB/s per GPU per direction against 100 GB/s of one ConnectX-8
// (800 Gb/s) per GPU; NVLink 4 (450 GB/s) against ConnectX-7 (400 Gb/s = 50 GB/s) is the same 9x
// (data/hardware/networks.csv). comm_share 0.04: share of a step spent in exposed intra-domain
// communication for a well-overlapped TP/EP job (an assumption; the training model will replace it).
// Defaults give 1 + 0.04 * 8 = 1.32, i.e. 32% slower.
SlowdownModel default_slowdown(double comm_share = 0.04, double bandwidth_ratio = 9.0);
// A fixed penalty: a job with a split group runs (1 + penalty) times longer; 0 disables slowdown.
SlowdownModel fixed_slowdown(double penalty);

}  // namespace gpuplan::schedule
