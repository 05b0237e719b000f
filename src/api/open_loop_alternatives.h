#pragma once
// The deployments a steady demand on one system may be bought on, as sizing candidates: the operating-
// point chooser's best deployment on each size that gave more tokens/s per GPU than the smaller
// (ServingChoice::by_size, smallest first, the chooser's own last). A small demand is served on fewer
// units by a smaller one, a large one on the fewest GPUs per request by the most efficient; sizing buys
// the one taking the fewest units (sizing::size_candidates). `size` and `infer --requests-per-s` both
// build their candidates here, so one demand on one system gets one deployment through either command.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "api/open_loop_lengths.h"
#include "catalog/catalog.h"
#include "inference/chooser.h"
#include "sizing/sizing.h"

namespace gpuplan::api {

struct OpenLoopAlternative {
  sizing::Candidate candidate;  // unpriced (usd_per_unit_year 0): the caller prices it
  std::string plan, kind;       // the deployment (ServingDeployment::plan, ::kind)
  int gpus = 0;                 // one replica's GPUs
};

// One candidate per alternative of `choice` (met), each in `group`: the open loop tabulated under
// `lengths`, the serving bands widened for the question off their ground (band_for).
//
// Given the demand's sizing options (`sizing`), the alternatives must also leave room for the model's
// error: where none of them meets the SLA with its times at the errors' quantile halfway between the
// confidence and 1, within the replicas sizing draws for it, the chooser is asked again for the traffic's
// targets tightened by the chosen deployment's error quantiles at the confidence and at that halfway
// point (the per-user speed raised, the TTFT limit lowered), and its deployments join the group: a
// deployment faster per request (a wider TP) that reaches the confidence where the most throughput per
// GPU needs many more replicas or none reaches it (the SLA within the model's error of one request's own
// latency). Sizing then buys the one taking the fewest units.
std::vector<OpenLoopAlternative> open_loop_alternatives(const Catalog& catalog, const ServingScenario& scenario,
                                                        const std::string& system, const ServingChoice& choice,
                                                        const OpenLoopLengths& lengths, int group,
                                                        const sizing::SizingOptions* sizing = nullptr);

// One alternative that was not bought, as sized, for a command's `alternatives[]`: its deployment, the
// units a replica takes and its purchase (units 0 where none reached the confidence or it was not
// drawn, with why_not).
nlohmann::json unbought_alternative_json(const std::string& plan, const std::string& kind, int replica_units,
                                         const sizing::SizedOption& sized);

}  // namespace gpuplan::api
