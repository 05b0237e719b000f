// gpuplan size: a serving demand sized on every system with the odds and the money (see size.h).
#include "api/size.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <ostream>
#include <vector>

#include "api/band_json.h"
#include "api/open_loop_alternatives.h"
#include "api/serving_engine.h"
#include "api/system_list.h"
#include "compare/compare.h"
#include "compare/operating_point.h"
#include "core/error.h"
#include "cost/cost_profile.h"
#include "cost/tco.h"
#include "inference/chooser.h"
#include "inference/open_loop.h"
#include "model/model_registry.h"
#include "physics/compute.h"
#include "sizing/money.h"
#include "sizing/rent_prices.h"
#include "sizing/sizing.h"

namespace gpuplan::api {

void add_size_options(CLI::App& app, SizeRequest& req) {
  app.description("Size a serving demand on every system that runs the model: the deployment, the whole units to buy "
                  "so that the SLA holds with the stated confidence under the model's error bands (Monte Carlo, two "
                  "systems' errors correlated as the bands measured them), capex, $/year, $ per million tokens, power, and the chance each system is "
                  "the cheapest. Open-loop Poisson arrivals; see docs/sizing.md.");
  add_cost_options(app, req.cost_opts);
  app.add_option("--model", req.model_name, "Model to serve (required)");
  app.add_option("--system,--systems", req.systems,
                 "System(s) to size (repeatable or comma-separated; default: every catalog system)")
      ->delimiter(',');
  app.add_option("--precision", req.precision, "Weights format: bf16, fp8, mxfp8, nvfp4, fp4, w4a16")->capture_default_str();
  app.add_option("--engine", req.engine,
                 "Serving engine on every system (sglang, tensorrt-llm, vllm, ...: its front end, host work and KV "
                 "rules, as infer --engine reads them; systems it does not run on are listed with the reason); "
                 "default: none stated");
  app.add_option("--isl", req.isl, "Input tokens per request")->capture_default_str();
  app.add_option("--osl", req.osl, "Output tokens per request")->capture_default_str();
  add_open_loop_length_options(app, req.lengths, true);
  app.add_option("--requests-per-s", req.requests_per_s, "Demand: average requests/s (Poisson arrivals)");
  app.add_option("--users", req.users,
                 "Demand: concurrent users, each with one request in flight at the SLA's speed (Little's law)");
  app.add_option("--tokens-per-day", req.tokens_per_day, "Demand: input plus output tokens a day");
  app.add_option("--peak-factor", req.peak_factor, "Peak over average demand; the purchase serves the peak")
      ->capture_default_str();
  app.add_option("--ttft-p99-ms", req.ttft_p99_ms,
                 "SLA: 99th percentile TTFT, ms (default: MLPerf's Server limit by ISL; 0: none)");
  app.add_option("--tokens-per-user-per-s,--tokens-per-user", req.tokens_per_user,
                 "SLA: the median request's output tokens/s (1 / TPOT p50)");
  app.add_option("--tpot-p99-ms", req.tpot_p99_ms, "SLA: 99th percentile TPOT, ms (0: none)");
  app.add_option("--confidence", req.confidence, "P(meets SLA) the purchase must reach")->capture_default_str();
  app.add_option("--draws", req.draws, "Monte Carlo draws of the model's error")->capture_default_str();
  app.add_option("--seed", req.seed, "Seed of the draws")->capture_default_str();
  app.add_option("--price-mode", req.price_mode, "own (TCO) or rent (per GPU-hour)")->capture_default_str();
  app.add_option("--rent-usd-per-gpu-hour", req.rent_overrides,
                 "Rental price SYSTEM=PRICE, USD per GPU-hour (repeatable; default: data/cost/rent.yaml)");
  app.add_flag("--sensitivity", req.sensitivity,
               "Tornado of $ per million tokens over price, electricity, utilisation, lifetime and PUE, and the "
               "utilisation above which owning beats renting");
  add_long_context_options(app, req.long_context);  // long prompts: --prefix-hit, --kv-offload, --context-attention, as in infer
}

namespace {

// The largest total rate `replicas` replicas serve within the SLA (nominal model), by bisection.
double capacity_requests_per_s(const OpenLoopCurve& c, long long replicas, const sizing::Sla& sla, double from) {
  double lo = 0, hi = std::max(from, 1e-6);
  while (sizing::meets_sla(c, hi / double(replicas), sla) && hi < 1e9) hi *= 2;
  for (int it = 0; it < 50; ++it) {
    const double m = 0.5 * (lo + hi);
    (sizing::meets_sla(c, m / double(replicas), sla) ? lo : hi) = m;
  }
  return lo;
}

}  // namespace

int size(const Catalog& catalog, SizeRequest req, Output& output) {
  if (req.model_name.empty()) throw InputError("--model", "is required: the model to serve");
  if (!(req.requests_per_s >= 0 && req.requests_per_s <= 1e7))
    throw InputError("--requests-per-s", fmt::format("must be above 0 and at most 1e7, got {:g}", req.requests_per_s));
  if (!(req.users >= 0 && req.users <= 1e9))
    throw InputError("--users", fmt::format("must be above 0 and at most 1e9, got {:g}", req.users));
  if (!(req.tokens_per_day >= 0 && req.tokens_per_day <= 1e16))
    throw InputError("--tokens-per-day", fmt::format("must be above 0 and at most 1e16, got {:g}", req.tokens_per_day));
  const int demands = (req.requests_per_s > 0) + (req.users > 0) + (req.tokens_per_day > 0);
  if (demands != 1)
    throw InputError(demands == 0 ? "--requests-per-s" : req.tokens_per_day > 0 ? "--tokens-per-day" : "--users",
                     "give exactly one demand: --requests-per-s, --users or --tokens-per-day (above 0)");
  if (!(req.peak_factor >= 1 && req.peak_factor <= 100)) throw InputError("--peak-factor", "must be 1 to 100");
  if (req.isl < 1 || req.isl > 10'000'000) throw InputError("--isl", "must be 1 to 10000000");
  if (req.osl < 1 || req.osl > 10'000'000) throw InputError("--osl", "must be 1 to 10000000");
  check_open_loop_lengths(req.lengths, req.isl);
  if (req.given("--ttft-p99-ms") && !(req.ttft_p99_ms >= 0 && req.ttft_p99_ms <= 1e7))
    throw InputError("--ttft-p99-ms", "must be 0 (none) to 10000000");
  if (!(req.tokens_per_user >= 0 && req.tokens_per_user <= 1e5))
    throw InputError("--tokens-per-user-per-s", "must be 0 (none) to 100000");
  if (!(req.tpot_p99_ms >= 0 && req.tpot_p99_ms <= 1e7)) throw InputError("--tpot-p99-ms", "must be 0 (none) to 10000000");
  if (!(req.confidence > 0 && req.confidence < 1)) throw InputError("--confidence", "must be above 0 and below 1");
  if (req.draws < 1 || req.draws > 1'000'000) throw InputError("--draws", "must be 1 to 1000000");
  if (req.seed < 0) throw InputError("--seed", "must be 0 or more");
  if (req.price_mode != "own" && req.price_mode != "rent")
    throw InputError("--price-mode", fmt::format("must be own or rent, got '{}'", req.price_mode));
  const auto prec = parse_precision(req.precision);
  if (!prec) throw InputError("--precision", fmt::format("unknown precision '{}'; allowed: {}", req.precision, precision_names()));
  const cost::CostProfile profile = load_cost_profile(req.cost_opts);
  const auto rents = sizing::rent_prices(catalog, req.rent_overrides, "--rent-usd-per-gpu-hour");
  const ModelArch model = resolve_model(req.model_name, "--model");
  InferenceWorkload context;  // --prefix-hit, --kv-offload, --context-attention: checked and read as infer reads them
  apply_long_context(req.long_context, context);
  check_long_context_model(req.long_context, model);

  sizing::Sla sla;
  sla.ttft_p99_s = req.given("--ttft-p99-ms") ? req.ttft_p99_ms / 1e3 : default_ttft_limit_s(req.isl);
  sla.tokens_per_s_per_user = req.tokens_per_user;
  sla.tpot_p99_s = req.tpot_p99_ms / 1e3;
  // The speed a request's decode must reach: what the chooser's deployment is picked for.
  const double target_speed = std::max(sla.tokens_per_s_per_user, sla.tpot_p99_s > 0 ? 1.0 / sla.tpot_p99_s : 0.0);

  // Demand: the average rate, and the peak the purchase serves.
  double average_rps = req.requests_per_s;
  std::string demand_basis = "stated requests/s";
  if (req.users > 0) {
    const double speed = target_speed > 0 ? target_speed : 20.0;
    average_rps = req.users / (sla.ttft_p99_s + double(req.osl - 1) / speed);
    demand_basis = fmt::format("{:g} users, one request each in flight for TTFT + (OSL - 1) / {:g} tokens/s", req.users, speed);
  } else if (req.tokens_per_day > 0) {
    average_rps = req.tokens_per_day / 86400.0 / double(req.isl + req.osl);
    demand_basis = "tokens per day / 86400 / (ISL + OSL)";
  }
  const double peak_rps = average_rps * req.peak_factor;
  const double average_tokens_per_s = average_rps * double(req.osl);

  req.systems = resolve_system_list(catalog, req.systems, "--systems");
  // The demand as sizing weighs it: the purchase, and the alternatives' room for the model's error.
  sizing::SizingOptions so;
  so.requests_per_s = peak_rps;
  so.sla = sla;
  so.confidence = req.confidence;
  so.draws = req.draws;
  so.seed = std::uint64_t(req.seed);
  // How far two systems' errors move together, where the catalog's bands measured it.
  sizing::apply_band_correlation(catalog.band_correlation(), so);

  struct Prepared {
    compare::SystemSide side;
    std::string why_not, note;
    ServingChoice choice;
    std::optional<sizing::RentPrice> rent;
  };
  std::vector<Prepared> prepared;
  std::vector<sizing::Candidate> candidates;
  std::vector<std::size_t> candidate_of;  // prepared index of each candidate
  std::vector<std::pair<std::string, std::string>> plan_of;  // each candidate's deployment: plan, kind
  const double mtp = catalog_mtp_accept(catalog, req.engine);
  InferenceWorkload engine_figures;  // --engine checked once, before any system
  if (!req.engine.empty()) apply_serving_engine(catalog, req.engine, engine_figures);
  for (const auto& name : req.systems) {
    Prepared p;
    p.side = compare::make_side(catalog, name, profile);
    if (auto it = rents.find(p.side.system); it != rents.end()) p.rent = it->second;
    // A precision the chip has no tensor cores for is served as infer and recommend serve it: weights stored
    // narrow, math in the wider format the chip has (weight-only kernels), said in a note.
    const Accelerator& acc = p.side.hw.accelerator;
    if (std::string why = serving_refusal(acc, *prec); !why.empty()) {
      p.why_not = std::move(why);
      prepared.push_back(std::move(p));
      continue;
    }
    p.note = serving_fallback_note(acc, *prec);
    if (std::string why = engine_refusal(catalog, req.engine, p.side.hw); !why.empty()) {
      p.why_not = std::move(why);
      prepared.push_back(std::move(p));
      continue;
    }
    if (const LongContextRefusal why = long_context_refusal(req.long_context, p.side.hw); !why.empty()) {
      p.why_not = why.message;
      prepared.push_back(std::move(p));
      continue;
    }
    ServingScenario sc = compare::serving_scenario(model, p.side.hw, p.side.gpus_per_unit, *prec, req.isl, req.osl,
                                                   target_speed, 0, sla.ttft_p99_s > 0 ? sla.ttft_p99_s : 0, mtp);
    if (!req.engine.empty()) {
      apply_serving_engine(catalog, req.engine, sc.workload);
      sc.engine = req.engine;
    }
    sc.workload.prefix_hit_fraction = context.prefix_hit_fraction;
    sc.workload.kv_offload_host = context.kv_offload_host;
    sc.workload.fp8_context_attention = context.fp8_context_attention;
    p.choice = choose_serving(sc);
    if (!p.choice.met) {
      p.why_not = p.choice.why_not;
      prepared.push_back(std::move(p));
      continue;
    }
    // The alternatives (the chooser's best on each size); sizing buys the one taking the fewest units.
    for (OpenLoopAlternative& alt :
         open_loop_alternatives(catalog, sc, p.side.system, p.choice, req.lengths, int(prepared.size()), &so)) {
      sizing::Candidate& c = alt.candidate;
      if (req.price_mode == "own")
        c.usd_per_unit_year = p.side.tco.priced ? p.side.tco.total_usd_per_year() : 0;
      else
        c.usd_per_unit_year = p.rent ? sizing::rent_usd_per_year(c.unit_gpus, p.rent->usd_per_gpu_hour) : 0;
      candidate_of.push_back(prepared.size());
      plan_of.push_back({alt.plan, alt.kind});
      candidates.push_back(std::move(c));
    }
    prepared.push_back(std::move(p));
  }
  const std::vector<sizing::SizedOption> sized = sizing::size_candidates(candidates, so);

  nlohmann::json options = nlohmann::json::array();
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    const Prepared& p = prepared[candidate_of[k]];
    const sizing::Candidate& c = candidates[k];
    const sizing::SizedOption& s = sized[k];
    if (!s.chosen) continue;
    nlohmann::json o = {{"system", c.system}, {"deployment", plan_of[k].first}, {"deployment_kind", plan_of[k].second},
                        {"replica_units", c.replica_units}, {"unit_gpus", c.unit_gpus},
                        {"band_basis", {{"tpot_s", band_basis_json(c.tpot_band)},
                                        {"ttft_s", band_basis_json(c.ttft_band)}}}};
    if (!p.note.empty()) o["note"] = p.note;
    // The system's other deployments, as sized: why this one was bought.
    nlohmann::json others = nlohmann::json::array();
    for (std::size_t m = 0; m < candidates.size(); ++m)
      if (m != k && candidates[m].group == c.group)
        others.push_back(
            unbought_alternative_json(plan_of[m].first, plan_of[m].second, candidates[m].replica_units, sized[m]));
    o["alternatives"] = others;
    if (!s.feasible || s.replicas == 0) {
      o["why_not"] = s.why_not;
      o["replicas_nominal"] = s.replicas_nominal;
      o["p_cheapest"] = s.p_cheapest;
      options.push_back(o);
      continue;
    }
    const double units = double(s.units);
    const double it_kw = units * p.side.tco.it_w_full / 1e3;
    const double usd_year = units * c.usd_per_unit_year;
    o["units"] = s.units;
    o["gpus"] = s.gpus;
    o["replicas"] = s.replicas;
    o["replicas_nominal"] = s.replicas_nominal;
    o["capex_usd"] = req.price_mode == "own" && p.side.tco.priced ? units * p.side.tco.capex_usd() : 0.0;
    o["usd_per_year"] = usd_year;
    o["usd_per_million_tokens"] = sizing::usd_per_million_tokens(usd_year, average_tokens_per_s);
    o["priced"] = c.usd_per_unit_year > 0;
    o["it_kw"] = it_kw;
    o["facility_mw"] = it_kw * profile.pue / 1e3;
    o["liquid_cooled_positions"] =
        catalog.system(c.system, "--systems").cooling == Cooling::liquid ? s.units : 0;
    o["p_meets_sla"] = s.p_meets_sla;
    o["p_cheapest"] = s.p_cheapest;
    o["ttft_p50_s"] = s.at_bought.ttft_p50_s;
    o["ttft_p99_s"] = s.at_bought.ttft_p99_s;
    o["tpot_p50_s"] = s.at_bought.tpot_p50_s;
    o["tpot_p99_s"] = s.at_bought.tpot_p99_s;
    o["tokens_per_s_per_user"] = s.at_bought.tokens_per_s_per_user_p50;
    o["decode_batch_per_replica"] = s.at_bought.decode_batch;
    o["prefill_utilization"] = s.at_bought.prefill_utilization;
    if (!s.why_not.empty()) o["why_not"] = s.why_not;
    if (p.rent) o["rent"] = {{"usd_per_gpu_hour", p.rent->usd_per_gpu_hour}, {"source", p.rent->source}};
    if (req.sensitivity) {
      const double cap_rps = capacity_requests_per_s(c.curve, s.replicas, sla, peak_rps);
      if (p.side.tco.priced) {
        nlohmann::json bars = nlohmann::json::array();
        for (const auto& b : sizing::own_sensitivity(cost::unit_cost_input(catalog, catalog.system(c.system, "--systems")),
                                                     profile, units, average_tokens_per_s, cap_rps * double(req.osl)))
          bars.push_back({{"parameter", b.parameter}, {"unit", b.unit}, {"base", b.base}, {"low", b.low}, {"high", b.high},
                          {"usd_per_million_tokens_low", b.usd_per_million_tokens_low},
                          {"usd_per_million_tokens_high", b.usd_per_million_tokens_high}});
        o["sensitivity"] = bars;
      }
      o["capacity_requests_per_s"] = cap_rps;
      o["utilisation"] = cap_rps > 0 ? average_rps / cap_rps : 0;
      if (p.rent && p.side.tco.priced)
        o["own_beats_rent_above_utilisation"] = sizing::own_beats_rent_utilisation(p.side.tco, p.rent->usd_per_gpu_hour);
    }
    options.push_back(o);
  }
  for (const Prepared& p : prepared)
    if (!p.why_not.empty()) options.push_back({{"system", p.side.system}, {"why_not", p.why_not}});
  // Cheapest first; unpriced and unmet last.
  std::stable_sort(options.begin(), options.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    const auto key = [](const nlohmann::json& o) {
      if (!o.contains("units")) return 3e300;
      if (!o.value("priced", false)) return 2e300;
      return o["usd_per_year"].get<double>();
    };
    return key(a) < key(b);
  });

  // With --sensitivity, the crossover of the two cheapest priced purchases (their units as bought): the
  // runner-up's price at which it costs what the first does a year, and the first's at which it costs what
  // the runner-up does (per unit owned, per GPU-hour rented).
  nlohmann::json crossover;
  if (req.sensitivity) {
    std::vector<const nlohmann::json*> priced;
    for (const auto& o : options)
      if (o.contains("units") && o.value("priced", false)) priced.push_back(&o);
    if (priced.size() >= 2) {
      const nlohmann::json &a = *priced[0], &b = *priced[1];
      const auto price_at = [&](const nlohmann::json& o, double target_usd_per_year) -> nlohmann::json {
        std::optional<double> x;
        if (req.price_mode == "own")
          x = sizing::unit_price_for_usd_per_year(
              cost::unit_cost_input(catalog, catalog.system(o["system"].get<std::string>(), "--systems")), profile,
              o["units"].get<double>(), target_usd_per_year);
        else
          x = target_usd_per_year / (o["gpus"].get<double>() * cost::kHoursPerYear);
        return x ? nlohmann::json(*x) : nlohmann::json(nullptr);
      };
      const auto price_now = [&](const nlohmann::json& o) -> double {
        if (req.price_mode != "own") return o["rent"]["usd_per_gpu_hour"].get<double>();
        return cost::compute_tco(cost::unit_cost_input(catalog, catalog.system(o["system"].get<std::string>(), "--systems")),
                                 profile)
            .system_price_usd;
      };
      crossover = {{"first", a["system"]},
                   {"runner_up", b["system"]},
                   {"price_unit", req.price_mode == "own" ? "USD per unit" : "USD per GPU-hour"},
                   {"runner_up_price_usd", price_now(b)},
                   {"runner_up_overtakes_below_usd", price_at(b, a["usd_per_year"].get<double>())},
                   {"first_price_usd", price_now(a)},
                   {"first_loses_above_usd", price_at(a, b["usd_per_year"].get<double>())}};
    }
  }

  if (output.json()) {
    nlohmann::json doc = {
        {"model", model.name}, {"precision", req.precision}, {"isl", req.isl}, {"osl", req.osl},
        {"lengths", open_loop_lengths_json(req.lengths)},
        {"engine", req.engine.empty() ? std::string(kNoEngineStated) : req.engine},
        {"demand", {{"average_requests_per_s", average_rps}, {"peak_factor", req.peak_factor},
                    {"peak_requests_per_s", peak_rps}, {"average_output_tokens_per_s", average_tokens_per_s},
                    {"basis", demand_basis}}},
        {"sla", {{"ttft_p99_s", sla.ttft_p99_s}, {"tokens_per_s_per_user", sla.tokens_per_s_per_user},
                 {"tpot_p99_s", sla.tpot_p99_s},
                 {"ttft_basis", req.given("--ttft-p99-ms") ? "stated" : default_ttft_basis(req.isl)}}},
        {"confidence", req.confidence}, {"draws", req.draws}, {"seed", req.seed}, {"price_mode", req.price_mode},
        {"long_context", long_context_json(req.long_context)}, {"options", options}};
    if (!crossover.is_null()) doc["crossover"] = crossover;
    output.emit("size", std::move(doc));
    return 0;
  }
  std::ostream& os = output.os();
  os << fmt::format("{} {} ISL/OSL {}/{} ({}): peak {:.3g} requests/s ({:.3g} average x {:g}), {}{}{}; "
                    "P(meets SLA) >= {:g} over {} draws; {} prices{}\n",
                    model.name, req.precision, req.isl, req.osl, open_loop_lengths_text(req.lengths), peak_rps,
                    average_rps, req.peak_factor,
                    sla.ttft_p99_s > 0 ? fmt::format("TTFT p99 <= {:.3g} s", sla.ttft_p99_s) : "no TTFT limit",
                    sla.tokens_per_s_per_user > 0 ? fmt::format(", >= {:g} tokens/s/user", sla.tokens_per_s_per_user) : "",
                    sla.tpot_p99_s > 0 ? fmt::format(", TPOT p99 <= {:g} ms", 1e3 * sla.tpot_p99_s) : "",
                    req.confidence, req.draws, req.price_mode,
                    req.engine.empty() ? std::string() : fmt::format("; engine {}", req.engine));
  os << "n/p: no price in the catalog or cost profile (own), or in data/cost/rent.yaml (rent: give "
        "--rent-usd-per-gpu-hour SYSTEM=PRICE)\n";
  os << fmt::format("{:<16} {:>6} {:>6} {:>10} {:>10} {:>8} {:>8} {:>7} {:>6} {:>6} {:>7} {:>7}  {}\n", "system", "units",
                    "gpus", "capex $M", "$M/year", "$/Mtok", "IT kW", "fac MW", "P(SLA)", "P(min)", "TTFT99", "tok/s/u",
                    "deployment");
  for (const auto& o : options) {
    if (!o.contains("units")) {
      os << fmt::format("{:<16} {}{}\n", o["system"].get<std::string>(), o.value("why_not", std::string()),
                        o.value("p_cheapest", 0.0) > 0 ? fmt::format(" (P(cheapest) {:.2f})", o["p_cheapest"].get<double>()) : "");
      continue;
    }
    const bool priced = o.value("priced", false);
    const auto money = [&](double v, const char* f) { return priced ? fmt::format(fmt::runtime(f), v) : std::string("n/p"); };
    os << fmt::format("{:<16} {:>6} {:>6} {:>10} {:>10} {:>8} {:>8.0f} {:>7.2f} {:>6.2f} {:>6.2f} {:>7.2f} {:>7.1f}  {}\n",
                      o["system"].get<std::string>(), o["units"].get<long long>(), o["gpus"].get<long long>(),
                      money(o["capex_usd"].get<double>() / 1e6, "{:.2f}"), money(o["usd_per_year"].get<double>() / 1e6, "{:.2f}"),
                      money(o["usd_per_million_tokens"].get<double>(), "{:.3f}"), o["it_kw"].get<double>(), o["facility_mw"].get<double>(),
                      o["p_meets_sla"].get<double>(), o["p_cheapest"].get<double>(), o["ttft_p99_s"].get<double>(),
                      o["tokens_per_s_per_user"].get<double>(), o["deployment"].get<std::string>());
    if (o.contains("sensitivity"))
      for (const auto& b : o["sensitivity"])
        os << fmt::format("    {:<13} {:>10.4g} .. {:<10.4g} -> ${:.3f} .. ${:.3f} per M tokens\n",
                          b["parameter"].get<std::string>(), b["low"].get<double>(), b["high"].get<double>(),
                          b["usd_per_million_tokens_low"].get<double>(), b["usd_per_million_tokens_high"].get<double>());
    if (o.contains("own_beats_rent_above_utilisation"))
      os << fmt::format("    owning beats renting above {:.0f}% utilisation (now {:.0f}%)\n",
                        100 * o["own_beats_rent_above_utilisation"].get<double>(), 100 * o["utilisation"].get<double>());
    if (o.contains("note")) os << fmt::format("    note: {}\n", o["note"].get<std::string>());
    // The system's other deployments (the chooser's best on other sizes) and why this one was bought.
    for (const auto& a : o["alternatives"]) {
      const long long u = a["units"].get<long long>();
      os << fmt::format("    instead of {} ({} unit{} a replica): {}\n", a["deployment"].get<std::string>(),
                        a["replica_units"].get<int>(), a["replica_units"].get<int>() == 1 ? "" : "s",
                        u > 0 ? fmt::format("{} units, P(SLA) {:.2f}", u, a["p_meets_sla"].get<double>())
                              : a["why_not"].get<std::string>());
    }
    // Why the Monte Carlo's bands are wider than on the ground they were fitted on.
    if (const auto& why = o["band_basis"]["tpot_s"]["widened_by"]; !why.empty())
      os << fmt::format("    error bands widened: {}\n", fmt::join(why.get<std::vector<std::string>>(), "; "));
  }
  if (!crossover.is_null()) {
    const bool own = req.price_mode == "own";
    const auto money = [&](const nlohmann::json& v) {
      if (v.is_null()) return std::string("no price");
      return own ? fmt::format("${:.4g}M a unit", v.get<double>() / 1e6) : fmt::format("${:.3g}/GPU-hour", v.get<double>());
    };
    os << fmt::format("crossover: {} overtakes {} at {} (now {}); {} loses its place at {} (now {}); units as bought\n",
                      crossover["runner_up"].get<std::string>(), crossover["first"].get<std::string>(),
                      money(crossover["runner_up_overtakes_below_usd"]), money(crossover["runner_up_price_usd"]),
                      crossover["first"].get<std::string>(), money(crossover["first_loses_above_usd"]),
                      money(crossover["first_price_usd"]));
  }
  return 0;
}

}  // namespace gpuplan::api
