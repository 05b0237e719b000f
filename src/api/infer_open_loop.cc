// infer --requests-per-s: open-loop Poisson arrivals on the chosen deployment (see infer_open_loop.h).
#include "api/infer_open_loop.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "api/band_json.h"
#include "api/mode_options.h"
#include "api/open_loop_json.h"
#include "api/open_loop_alternatives.h"
#include "api/serving_engine.h"
#include "compare/compare.h"
#include "compare/operating_point.h"
#include "core/error.h"
#include "cost/cost_profile.h"
#include "inference/chooser.h"
#include "inference/open_loop.h"
#include "model/model_registry.h"
#include "physics/compute.h"
#include "sizing/odds.h"

namespace gpuplan::api {

void add_infer_open_loop_options(CLI::App& app, InferOpenLoopRequest& req) {
  add_infer_options(app, req);
  app.add_option("--requests-per-s", req.requests_per_s,
                 "Steady-state demand (open loop, what `size` sizes): Poisson arrivals at this average rate, without "
                 "end; the purchase `size` makes on this system (the deployment and its replicas at --confidence) and "
                 "one replica's TTFT and TPOT at p50 and p99 at its share (docs/sizing.md); with a deployment stated "
                 "(--gpus/--tp/--ep/--pp/--attention-dp, or --disagg with its pools), the open loop on it: its load, "
                 "p50/p99 TTFT and TPOT, and with --ttft-ms/--tpot-ms as p99 limits the largest rate within them. Not "
                 "--request-rate, which replays one benchmark run on a stated deployment");
  app.add_option("--peak-factor", req.peak_factor, "Open loop: the rate evaluated is --requests-per-s x this")
      ->capture_default_str();
  add_open_loop_length_options(app, req.lengths, false);  // --length-low: infer's own
  app.add_option("--confidence", req.confidence,
                 "Open loop: P(meets SLA) the replicas bought must reach under the model's error, as `size` buys them")
      ->capture_default_str();
  app.add_option("--draws", req.draws,
                 "Open loop: Monte Carlo draws of the model's error for the figures' 80% bands and the odds, as `size` "
                 "draws them (1 to 1000000)")
      ->capture_default_str();
  app.add_option("--seed", req.seed, "Open loop: seed of the draws")->capture_default_str();
}

namespace {

// A deployment stated: any of the options that fix the plan.
bool stated_deployment(const InferOpenLoopRequest& req) {
  for (const char* o : {"--gpus", "--tp", "--ep", "--pp", "--attention-dp", "--two-batch-overlap", "--disagg"})
    if (req.given(o)) return true;
  return false;
}

// --requests-per-s on the stated deployment: the open-loop question taken out of the options (the SLA's
// options become its limits), the rest resolved by infer() as its closed loop resolves them.
int stated_open_loop(const Catalog& catalog, InferOpenLoopRequest req, Output& output, const Session* session) {
  if (req.given("--confidence"))
    throw InputError("--confidence", "sets the odds a purchase must reach; on a stated deployment nothing is bought "
                                     "(its P(meets the limits) is reported)");
  for (const char* o : {"--concurrency", "--request-rate", "--requests-in-run", "--sweep", "--recipe", "--arrival",
                        "--requests-per-client", "--aggregated-only", "--max-pp"})
    if (req.given(o))
      throw InputError(o, "does not apply with --requests-per-s on a stated deployment (the load is the Poisson "
                          "arrivals' rate)");
  if (req.isl < 1 || req.isl > 10'000'000) throw InputError("--isl", "must be 1 to 10000000");
  StatedOpenLoop q;
  q.requests_per_s = req.requests_per_s;
  q.peak_factor = req.peak_factor;
  q.lengths = req.lengths;
  q.lengths.length_low = req.length_low;  // infer's --length-low, read as the open loop's length law
  check_open_loop_lengths(q.lengths, req.isl);
  q.draws = req.draws;
  q.seed = req.seed;
  // The SLA as limits on the open loop's figures: --ttft-ms and --tpot-ms on the 99th percentiles,
  // --tokens-per-user-per-s on the median request's speed.
  for (const auto& [name, value] : {std::pair<const char*, double>{"--ttft-ms", req.ttft_ms}, {"--tpot-ms", req.tpot_ms},
                                    {"--tokens-per-user-per-s", req.tokens_per_user}})
    if (req.given(name) && !(value > 0 && value <= 1e9))
      throw InputError(name, fmt::format("must be above 0 and at most 1e9, got {}", value));
  q.limits.ttft_p99_s = req.given("--ttft-ms") ? req.ttft_ms / 1e3 : 0;
  q.limits.tpot_p99_s = req.given("--tpot-ms") ? req.tpot_ms / 1e3 : 0;
  q.limits.tpot_p50_s = req.given("--tokens-per-user-per-s") ? 1.0 / req.tokens_per_user : 0;
  req.ttft_ms = req.tpot_ms = req.tokens_per_user = 0;
  req.length_low = 1;
  std::erase_if(req.given_options, [](const std::string& o) {
    return o == "--ttft-ms" || o == "--tpot-ms" || o == "--tokens-per-user-per-s" || o == "--tokens-per-user" ||
           o == "--length-low";
  });
  req.open_loop = q;
  return infer(catalog, std::move(req), output, session);
}

}  // namespace

int infer_open_loop(const Catalog& catalog, InferOpenLoopRequest req, Output& output, const Session* session) {
  if (!req.given("--requests-per-s")) {
    for (const char* o : {"--peak-factor", "--isl-max", "--confidence", "--draws", "--seed"})
      if (req.given(o)) throw InputError(o, "applies with --requests-per-s");
    return infer(catalog, std::move(req), output, session);
  }
  if (!(req.requests_per_s > 0 && req.requests_per_s <= 1e7))
    throw InputError("--requests-per-s", "must be above 0 and at most 1e7");
  if (!(req.peak_factor >= 1 && req.peak_factor <= 100)) throw InputError("--peak-factor", "must be 1 to 100");
  if (!(req.confidence > 0 && req.confidence < 1)) throw InputError("--confidence", "must be above 0 and below 1");
  if (req.draws < 1 || req.draws > 1'000'000) throw InputError("--draws", "must be 1 to 1000000");
  if (req.seed < 0) throw InputError("--seed", "must be 0 or more");
  if (stated_deployment(req)) return stated_open_loop(catalog, std::move(req), output, session);
  // The purchase reads these options only; any other given is refused, never ignored.
  refuse_options_not_read(
      req,
      {"--model", "--system", "--isl", "--osl", "--precision", "--tokens-per-user-per-s", "--tokens-per-user",
       "--ttft-ms", "--engine", "--requests-per-s", "--peak-factor", "--isl-max", "--length-low", "--confidence", "--draws",
       "--seed", "--catalog", "--calibration", "--json", "--csv"},
      [](std::string_view o) -> std::string {
        return o == "--request-rate"
                   ? "give --requests-per-s (a steady demand: the deployment and replicas bought, p50/p99) or "
                     "--request-rate (a benchmark run on a stated deployment), not both"
                   : "does not apply to the purchase --requests-per-s makes without a deployment stated (the deployment "
                     "and its replicas are bought on whole units from --model, --system, --isl/--osl, --precision, "
                     "--engine, the speed as --tokens-per-user-per-s and --ttft-ms); state one with --gpus/--tp to ask "
                     "the open loop of it";
      });
  if (req.isl < 1 || req.isl > 10'000'000) throw InputError("--isl", "must be 1 to 10000000");
  if (req.osl < 1 || req.osl > 10'000'000) throw InputError("--osl", "must be 1 to 10000000");
  req.lengths.length_low = req.length_low;  // infer's --length-low, read here as size reads its own
  check_open_loop_lengths(req.lengths, req.isl);
  const auto prec = parse_precision(req.precision);
  if (!prec) throw InputError("--precision", fmt::format("unknown precision '{}'; allowed: {}", req.precision, precision_names()));
  const ModelArch model = resolve_model(req.model_name, "--model");
  const auto side = compare::make_side(catalog, catalog.system(req.system, "--system").name, cost::builtin_cost_profile());
  // A precision the chip has no tensor cores for is served as infer's point mode and size serve it:
  // weights stored narrow, math in the wider format the chip has (weight-only kernels), said in a note.
  const Accelerator& acc = side.hw.accelerator;
  if (const std::string why = serving_refusal(acc, *prec); !why.empty()) throw InputError("--precision", why);
  const std::string precision_note = serving_fallback_note(acc, *prec);
  const double ttft_stated_s = req.given("--ttft-ms") ? req.ttft_ms / 1e3 : -1;
  const double ttft_limit_s = resolve_ttft_limit_s(ttft_stated_s, req.isl);
  ServingScenario sc = compare::serving_scenario(model, side.hw, side.gpus_per_unit, *prec, req.isl, req.osl,
                                                 req.tokens_per_user, 0, ttft_limit_s,
                                                 catalog_mtp_accept(catalog, req.engine));
  if (!req.engine.empty()) {  // the engine's front end, host work and KV rules, as infer's point mode reads them
    apply_serving_engine(catalog, req.engine, sc.workload);
    if (const std::string why = engine_refusal(catalog, req.engine, side.hw); !why.empty())
      throw InputError("--engine", why);
    sc.engine = req.engine;
  }
  const ServingChoice ch = choose_serving(sc);
  const double rate = req.requests_per_s * req.peak_factor;
  nlohmann::json j = {{"mode", "open_loop"}, {"model", model.name}, {"system", side.system}, {"isl", req.isl},
                      {"osl", req.osl}, {"lengths", open_loop_lengths_json(req.lengths)},
                      {"engine", req.engine.empty() ? std::string(kNoEngineStated) : req.engine},
                      {"precision", req.precision}, {"requests_per_s", req.requests_per_s},
                      {"peak_factor", req.peak_factor}, {"rate_evaluated_per_s", rate},
                      {"ttft_limit_s", ttft_limit_s}, {"ttft_limit_basis", ttft_limit_basis(ttft_stated_s, req.isl)}};
  j["precision_note"] = precision_note;
  if (!ch.met) {
    j["met"] = false;
    j["why_not"] = ch.why_not;
    if (output.json())
      output.emit("infer", std::move(j));
    else
      output.os() << "no deployment: " << ch.why_not << "\n";
    return 3;
  }
  // The purchase `size` makes on this system: the alternative deployment taking the fewest units, and the
  // fewest replicas of it whose P(meets SLA) reaches the confidence, under the same draws.
  sizing::SizingOptions so;
  so.requests_per_s = rate;
  so.sla.ttft_p99_s = ttft_limit_s > 0 ? ttft_limit_s : 0;
  so.sla.tokens_per_s_per_user = std::max(0.0, req.tokens_per_user);
  so.confidence = req.confidence;
  so.draws = req.draws;
  so.seed = std::uint64_t(req.seed);
  sizing::apply_band_correlation(catalog.band_correlation(), so);
  std::vector<OpenLoopAlternative> alts = open_loop_alternatives(catalog, sc, side.system, ch, req.lengths, 0, &so);
  std::vector<sizing::Candidate> cands;
  for (const auto& a : alts) cands.push_back(a.candidate);
  const std::vector<sizing::SizedOption> sized = sizing::size_candidates(cands, so);
  std::size_t pick = alts.size() - 1;
  for (std::size_t k = 0; k < sized.size(); ++k)
    if (sized[k].chosen) pick = k;
  const sizing::SizedOption& bought = sized[pick];
  const OpenLoopAlternative& alt = alts[pick];
  // The replicas: as bought; where no count reaches the confidence, the fewest the central figures need;
  // where none meets the SLA at all, one (its figures say why).
  const long long replicas = bought.replicas > 0 ? bought.replicas : std::max(1LL, bought.replicas_nominal);
  const std::string replicas_basis =
      bought.replicas > 0 ? fmt::format("the fewest whose P(meets SLA) >= {:g}", req.confidence)
      : bought.replicas_nominal > 0
          ? fmt::format("the fewest that meet the SLA at the model's central figures ({})", bought.why_not)
          : "one: " + bought.why_not;
  const double replica_rate = rate / double(replicas);
  const OpenLoopCurve& curve = alt.candidate.curve;
  const OpenLoopResult r = open_loop(curve, replica_rate);
  const bool met = r.stable && r.ttft_p99_s <= (ttft_limit_s > 0 ? ttft_limit_s : 1e300) &&
                   (req.tokens_per_user <= 0 || r.tokens_per_s_per_user_p50 >= req.tokens_per_user);
  // The odds of one replica at its share: size's P(meets SLA) for the purchase.
  const sizing::Candidate& cand = alt.candidate;
  const sizing::OpenLoopOdds odds = sizing::open_loop_odds(cand, replica_rate, so);
  const int units = cand.replica_units;
  j["deployment"] = {{"plan", alt.plan}, {"kind", alt.kind}, {"gpus", alt.gpus}, {"units", units}};
  j["replicas"] = replicas;
  j["replicas_nominal"] = bought.replicas_nominal;
  j["replicas_basis"] = replicas_basis;
  j["confidence"] = req.confidence;
  j["units"] = replicas * units;
  j["gpus"] = replicas * alt.gpus;
  j["rate_per_replica_per_s"] = replica_rate;
  nlohmann::json others = nlohmann::json::array();
  for (std::size_t k = 0; k < alts.size(); ++k)
    if (k != pick)
      others.push_back(unbought_alternative_json(alts[k].plan, alts[k].kind, alts[k].candidate.replica_units, sized[k]));
  j["alternatives"] = others;
  j["stable"] = r.stable;
  if (!r.why_not.empty()) j["why_not"] = r.why_not;
  j["met"] = met;
  j["prefill_utilization"] = r.prefill_utilization;
  j["decode_batch"] = r.decode_batch;
  j["decode_batch_p99"] = r.decode_batch_p99;
  j["slot_utilization"] = r.slot_utilization;
  if (r.stable) {
    add_open_loop_latencies(j, r);
    j["tokens_per_s"] = r.tokens_per_s;
    j["tokens_per_s_per_gpu"] = r.tokens_per_s / alt.gpus;
  }
  j["odds"] = open_loop_odds_json(odds, cand, req.seed);
  j["odds"]["p_meets_sla"] = odds.p_meets_sla;
  if (output.json()) {
    output.emit("infer", std::move(j));
  } else {
    std::ostream& os = output.os();
    os << fmt::format("{} on {}, {:.3g} requests/s Poisson, ISL/OSL {}/{} ({}){}\n", model.name, side.system, rate,
                      req.isl, req.osl, open_loop_lengths_text(req.lengths),
                      req.engine.empty() ? std::string() : ", engine " + req.engine);
    if (!precision_note.empty()) os << "Note: " << precision_note << "\n";
    os << fmt::format("  bought: {} replica{} of {} GPUs ({} unit{} of {}; {} GPUs in all) running {}: {}\n", replicas,
                      replicas == 1 ? "" : "s", alt.gpus, units, units == 1 ? "" : "s", sc.unit_gpus,
                      replicas * alt.gpus, alt.plan, replicas_basis);
    os << fmt::format("  one replica at {:.3g} requests/s:\n", replica_rate);
    if (!r.stable)
      os << "  unstable: " << r.why_not << "\n";
    else
      os << fmt::format("  TTFT p50 {:.3f} s, p99 {:.3f} s (limit {:.3g} s); TPOT p50 {:.2f} ms, p99 {:.2f} ms "
                        "({:.1f} tokens/s/user); decode batch {:.1f} (p99 {:.0f}); prefill {:.0f}% busy; {:.0f} "
                        "tokens/s/GPU\n",
                        r.ttft_p50_s, r.ttft_p99_s, ttft_limit_s, 1e3 * r.tpot_p50_s, 1e3 * r.tpot_p99_s,
                        r.tokens_per_s_per_user_p50, r.decode_batch, r.decode_batch_p99, 100 * r.prefill_utilization,
                        r.tokens_per_s / alt.gpus);
    os << open_loop_bands_text(odds, fmt::format(", P(meets the SLA) {:.2f}", odds.p_meets_sla));
  }
  return met || req.tokens_per_user <= 0 ? 0 : 3;
}

}  // namespace gpuplan::api
