// The deployments a steady demand may be bought on (see open_loop_alternatives.h).
#include "api/open_loop_alternatives.h"

#include <algorithm>

#include "api/band_json.h"
#include "inference/open_loop.h"

namespace gpuplan::api {

std::vector<OpenLoopAlternative> open_loop_alternatives(const Catalog& catalog, const ServingScenario& sc,
                                                        const std::string& system, const ServingChoice& choice,
                                                        const OpenLoopLengths& lengths, int group,
                                                        const sizing::SizingOptions* sizing) {
  std::vector<SweepPoint> points = choice.by_size;
  if (points.empty()) points.push_back(choice.point);
  std::vector<OpenLoopAlternative> out;
  const auto add = [&](const SweepPoint& at) {
    const ServingDeployment d = at.deployment();
    for (const OpenLoopAlternative& a : out)
      if (a.plan == d.plan() && a.kind == d.kind() && a.gpus == d.gpus) return;
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
  };
  for (const SweepPoint& at : points) add(at);
  if (!sizing || out.empty()) return out;
  // Room for the error: one alternative meets the SLA, within the replicas sizing draws for it, with its
  // times at the errors' quantile halfway between the confidence and 1 (then its draws all but surely
  // reach the confidence).
  const double beyond = (1 + sizing->confidence) / 2;
  for (const OpenLoopAlternative& a : out)
    if (sizing::meets_within_reach(a.candidate, *sizing, sizing::error_at_confidence(a.candidate, beyond))) return out;
  // None does: the chooser again, for the targets tightened by the chosen deployment's error at the
  // confidence and beyond it (the faster per request, the fewer replicas the draws need); sizing buys the
  // alternative taking the fewest units of them all.
  const OpenLoopScale margins[] = {sizing::error_at_confidence(out.back().candidate, sizing->confidence),
                                   sizing::error_at_confidence(out.back().candidate, beyond)};
  for (const OpenLoopScale& margin : margins) {
    ServingScenario strict = sc;
    ServingTraffic& t = strict.traffic;
    if (t.tokens_per_s_per_user > 0) t.tokens_per_s_per_user *= margin.tpot;
    if (t.tpot_limit_s > 0) t.tpot_limit_s /= margin.tpot;
    if (t.ttft_limit_s > 0) t.ttft_limit_s /= margin.prefill;
    const ServingChoice tight = choose_serving(strict);
    if (!tight.met) continue;
    if (tight.by_size.empty()) add(tight.point);
    for (const SweepPoint& at : tight.by_size) add(at);
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
