// The deployments a steady demand may be bought on (see open_loop_alternatives.h).
#include "api/open_loop_alternatives.h"

#include <algorithm>

#include "api/band_json.h"
#include "inference/open_loop.h"

namespace gpuplan::api {

std::vector<OpenLoopAlternative> open_loop_alternatives(const Catalog& catalog, const ServingScenario& sc,
                                                        const std::string& system, const ServingChoice& choice,
                                                        const OpenLoopLengths& lengths, int group) {
  std::vector<SweepPoint> points = choice.by_size;
  if (points.empty()) points.push_back(choice.point);
  std::vector<OpenLoopAlternative> out;
  for (const SweepPoint& at : points) {
    const ServingDeployment d = at.deployment();
    OpenLoopAlternative a;
    a.plan = d.plan();
    a.kind = d.kind();
    a.gpus = d.gpus;
    sizing::Candidate& c = a.candidate;
    c.system = system;
    c.generation = sc.hw.accelerator.generation;
    c.unit_gpus = sc.unit_gpus;
    c.replica_units = std::max(1, (d.gpus + c.unit_gpus - 1) / c.unit_gpus);
    c.group = group;
    c.curve = tabulate_open_loop(sc, d);
    apply_open_loop_lengths(lengths, c.curve);
    // The Monte Carlo draws from the bands widened for this question off their ground (band_for): on new
    // ground the SLA is met with less confidence; an engine the bands were not fitted on widens them too
    // (a scenario without an engine names none, and the basis says so).
    const BandQuestion q = serving_question(sc, d.gpus);
    c.tpot_band = serving_band(catalog, sc.hw, d.disaggregated, ServingFigure::tpot, q);
    c.ttft_band = serving_band(catalog, sc.hw, d.disaggregated, ServingFigure::ttft, q);
    out.push_back(std::move(a));
  }
  return out;
}

nlohmann::json unbought_alternative_json(const std::string& plan, const std::string& kind, int replica_units,
                                         const sizing::SizedOption& sized) {
  return {{"deployment", plan},           {"deployment_kind", kind},
          {"replica_units", replica_units}, {"units", sized.units},
          {"replicas_nominal", sized.replicas_nominal}, {"p_meets_sla", sized.p_meets_sla},
          {"why_not", sized.why_not}};
}

}  // namespace gpuplan::api
