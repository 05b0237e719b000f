// gpuplan site: will the site hold the cluster (power, cooling, positions), and what a power budget buys.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <optional>

#include "api/band_json.h"
#include "api/site.h"
#include "api/serving_engine.h"
#include "api/text.h"
#include "api/training_json.h"
#include "compare/operating_point.h"
#include "core/error.h"
#include "core/suggest.h"
#include "core/text.h"
#include "deploy/retrofit.h"
#include "deploy/site.h"
#include "fabric/system_fabric.h"
#include "inference/inference.h"
#include "inference/sweep.h"
#include "model/model_registry.h"
#include "physics/compute.h"
#include "physics/hardware.h"
#include "schedule/cluster_yaml.h"
#include "search/search.h"

namespace gpuplan::api {

schedule::SystemResolver catalog_resolver(const Catalog& catalog);  // cmd_schedule.cc

namespace site_detail {  // named, not anonymous: the CLI is a unity build

deploy::SystemPowerInput power_input(const Catalog& catalog, const System& s) {
  const Accelerator& a = catalog.accelerator(s.accelerator);
  return {s.name, s.display_name, s.gpus_per_node, s.nodes, s.power_w, a.tdp_w, s.cooling, s.rack_units.value_or(0)};
}

// Units the placement actually put in one position (the fullest), not what rack space would hold:
// a 40 kW position takes three 10.2 kW nodes although four fit its rack units.
int units_per_position_placed(const deploy::GroupFit& g) {
  if (g.placed > 0 && g.racks > 0) return (g.placed + g.racks - 1) / g.racks;
  return g.power.units_per_rack;
}
std::string mw(double w) { return fmt::format("{:.2f} MW", w / 1e6); }

nlohmann::json unit_json(const deploy::UnitPower& u) {
  return {{"system", u.system}, {"unit_is_rack", u.unit_is_rack}, {"gpus_per_unit", u.gpus},
          {"cooling", u.cooling == Cooling::liquid ? "liquid" : "air"}, {"units_per_rack", u.units_per_rack},
          {"unit_w", u.unit_w()}, {"rack_w", u.rack_w()}, {"it_w_per_unit", u.it_w()},
          {"parts_w", {{"gpu", u.gpu_w}, {"nic", u.nic_w}, {"host", u.host_w}, {"switch", u.switch_w},
                       {"storage", u.storage_w}}}};
}

// Best training throughput of `model` per GPU at a reference scale of whole units (search).
struct Throughput {
  double tokens_per_s_per_gpu = 0;
  int ref_gpus = 0;
  std::string plan;
};
Throughput training_throughput(const Catalog& catalog, const ModelArch& model, const System& s, int max_gpus,
                               int seq, long long global_batch, Precision precision) {
  Throughput t;
  const int unit = s.gpus_per_unit();
  // A power-of-two count of whole units: a GPU count the model's batch (2^a x 3^b sequences) splits over.
  int units = 1;
  while (2 * units * unit <= std::min(max_gpus, 1024)) units *= 2;
  t.ref_gpus = units * unit;
  if (max_gpus < unit) return t;
  TrainingWorkload w;
  w.num_gpus = t.ref_gpus;
  w.global_batch = global_batch;
  w.seq_len = seq;
  w.precision = precision;
  SearchOptions so;
  so.top_k = 1;
  const SearchResult r = search_plans(model, resolve_hardware(catalog, s.name), w, so);
  if (r.top.empty()) return t;
  t.tokens_per_s_per_gpu = r.top[0].result.tokens_per_s_per_gpu;
  t.plan = to_string(r.top[0].plan);
  return t;
}

// The serving operating point a budget is judged at.
struct InferencePoint {
  ModelArch model;
  Precision weights = Precision::fp8;
  long long isl = 1024, osl = 1024;
  double tokens_per_s_per_user = 0;  // 0: none (the highest throughput the KV cache allows)
  double tpot_limit_s = 0;           // 0: none
  double ttft_limit_s = -1;          // as stated (negative: the default by ISL; 0: none)
  double mtp_accept = 0;             // the session catalog's MTP acceptance (0: the built-in default)
};

// Best serving throughput per GPU of a system at the operating point: the operating-point chooser infer,
// compare, cost and recommend ask (inference/chooser.h), so they give one figure for one workload: the
// deployment (aggregated or, MoE models, disaggregated pools, EP widths, MTP) and the whole units (1, 2,
// 4 or 8) with the most tokens/s per GPU at the interactivity within the TTFT limit. Instances are
// data-parallel, so the per-GPU rate holds for any whole number of deployment copies.
struct ServingThroughput {
  bool feasible = false;
  std::string why_not;          // when not feasible
  int swept_gpus = 0;
  double ttft_limit_s = 0;
  std::optional<SweepPoint> point;
  std::string precision_note;   // the weights' format served on a chip without its tensor cores
};
ServingThroughput serving_throughput(const Catalog& catalog, const System& s, const InferencePoint& ip) {
  ServingThroughput t;
  const Hardware hw = resolve_hardware(catalog, s.name);
  // A precision the chip has no tensor cores for is served as infer, size and cost serve it: weights
  // stored narrow, math in the wider format the chip has, said in a note.
  const Accelerator& acc = hw.accelerator;
  if (std::string why = serving_refusal(acc, ip.weights); !why.empty()) {
    t.swept_gpus = s.gpus_per_unit();
    t.why_not = std::move(why);
    return t;
  }
  t.precision_note = serving_fallback_note(acc, ip.weights);
  const ServingChoice ch = choose_serving(compare::serving_scenario(ip.model, hw, s.gpus_per_unit(), ip.weights, ip.isl,
                                                                    ip.osl, ip.tokens_per_s_per_user, ip.tpot_limit_s,
                                                                    ip.ttft_limit_s, ip.mtp_accept));
  t.swept_gpus = ch.gpus;
  t.ttft_limit_s = ch.ttft_limit_s;
  if (!ch.met) {
    t.why_not = ch.why_not;
    return t;
  }
  t.feasible = true;
  t.point = ch.point;
  return t;
}

// A training plan without its trivial parts (parallel degree 1, no recompute, no sequence parallelism).
std::string compact_plan(const std::string& plan) {
  std::string out, part;
  for (char ch : plan + ",") {
    if (ch != ',') { part += ch; continue; }
    bool trivial = part == "recompute=none" || part == "sp=0";
    for (const char* d : {"tp=1", "pp=1", "vp=1", "cp=1", "ep=1"}) trivial |= part == d;
    if (!part.empty() && !trivial) out += (out.empty() ? "" : ",") + part;
    part.clear();
  }
  return out;
}

std::string serving_plan_text(const ServingThroughput& t) {
  if (!t.feasible) return "-";
  const SweepPoint& p = *t.point;
  return fmt::format("{}: {}, {} seqs, {:.0f} tok/s/user, TTFT {:.2g} s (at {} GPUs)", p.kind(), p.plan(), p.concurrency,
                     p.result.tokens_per_s_per_user, p.result.ttft_s, t.swept_gpus);
}

}  // namespace site_detail

void add_site_options(CLI::App& app, SiteRequest& req) {
  app.description("Site fit: IT power per rack and in total (GPU, NIC, host, switch and storage shares), facility "
               "power with PUE and planner headroom, against the site's positions (kW and cooling per position, "
               "CDU capacity) and feed; what does not fit and why, and how many racks of each system fit. With "
               "--power-mw: how many GPUs of each system a budget buys and the training and serving throughput "
               "(tokens/s per MW).");
  app.add_option("--cluster", req.cluster_path, "Cluster file (gpuplan.cluster/v1, as `gpuplan schedule --cluster`)");
  app.add_option("--site", req.site_path, "Site file (gpuplan.site/v1): positions, cooling, kW, CDUs, feed");
  app.add_option("--power-mw", req.power_mw, "Facility power budget in MW: GPUs and throughput it buys per system");
  app.add_option("--mix", req.mix_text,
                 "A mixed fleet filling one budget: SYSTEM:PERCENT,... of the budget each (e.g. "
                 "gb300-nvl72:70,hgx-h200:30; percentages add to 100)");
  app.add_option("--it-mw", req.it_mw,
                 "Instead of --power-mw: the IT power to deploy, MW (the facility budget is then IT x PUE / "
                 "(1 - headroom))");
  app.add_option("--systems", req.systems_text, "Comma-separated systems for --power-mw (default: the cluster's, or "
                                            "hgx-h100,hgx-h200,hgx-b200,hgx-b300,gb200-nvl72,gb300-nvl72)");
  app.add_option("--model", req.model_name, "Model for the throughput a budget buys")->capture_default_str();
  app.add_option("--seq", req.seq, "Sequence length for the throughput")->capture_default_str();
  app.add_option("--global-batch", req.global_batch,
                 "Training: sequences per step (default: follows the model, as published pre-training schedules "
                 "chose it; see `train --help`)");
  app.add_option("--precision", req.precision, "bf16, fp8, mxfp8 or nvfp4")->capture_default_str();
  app.add_option("--infer-model", req.infer_model_name, "Model for the serving throughput a budget buys")
      ->capture_default_str();
  app.add_option("--infer-precision", req.infer_precision, "Serving weights and GEMMs: bf16, fp8, fp4 or w4a16 (KV cache "
                                                        "fp8, bf16 with bf16/w4a16 weights)")
      ->capture_default_str();
  app.add_option("--isl", req.isl, "Serving: input tokens per request")->capture_default_str();
  app.add_option("--osl", req.osl, "Serving: output tokens per request")->capture_default_str();
  app.add_option("--tokens-per-user-per-s", req.tokens_per_user,
                 "Serving: interactivity, the least output tokens/s each user gets (default: no limit, the "
                 "highest throughput the KV cache allows)");
  app.add_option("--tpot-ms", req.tpot_ms, "Serving: limit on the mean time per output token (ms)");
  app.add_option("--ttft-ms", req.ttft_ms,
                 "Serving: limit on the mean time to first token (ms; default: MLPerf's Server limits scaled with the "
                 "ISL, 2 s up to 2K input tokens)");
  app.add_option("--pue", req.pue, "Power usage effectiveness (overrides the site file and the 1.3 default)");
  app.add_option("--headroom", req.headroom,
                 "Share of the feed kept unused, a fraction like --cost-of-capital (0.25 = 25%; default 0.25, or the "
                 "site file's headroom_pct)");
}

int site(const Catalog& catalog, SiteRequest req, Output& output) {
  using namespace site_detail;
  if (req.given("--power-mw") && req.given("--it-mw"))
    throw InputError("--it-mw", "give --power-mw (facility) or --it-mw (IT), not both");
  if (req.given("--it-mw") && (req.it_mw <= 0 || req.it_mw > 1e5))
    throw InputError("--it-mw", fmt::format("must be more than 0 and at most 100000 MW, got {}", req.it_mw));
  if (req.given("--power-mw") && (req.power_mw <= 0 || req.power_mw > 1e5))
    throw InputError("--power-mw", fmt::format("must be more than 0 and at most 100000 MW, got {}", req.power_mw));
  if (req.cluster_path.empty() && req.power_mw <= 0 && req.it_mw <= 0)
    throw InputError("--cluster", "give a cluster file (--cluster) or a power budget (--power-mw or --it-mw)");
  if (req.power_mw <= 0 && req.it_mw <= 0)
    for (const char* opt : {"--systems", "--mix", "--model", "--seq", "--global-batch", "--precision", "--infer-model", "--infer-precision",
                            "--isl", "--osl", "--tokens-per-user-per-s", "--tpot-ms", "--ttft-ms"})
      if (req.given(opt)) throw InputError(opt, "applies to a power budget only: give --power-mw or --it-mw too");
  if (req.seq < 1 || req.seq > 10000000) throw InputError("--seq", fmt::format("must be 1 to 10000000, got {}", req.seq));
  req.check_global_batch(req.global_batch);
  if (req.isl < 1 || req.isl > 10000000) throw InputError("--isl", fmt::format("must be 1 to 10000000, got {}", req.isl));
  if (req.osl < 1 || req.osl > 10000000) throw InputError("--osl", fmt::format("must be 1 to 10000000, got {}", req.osl));
  if (req.given("--tpot-ms") && !(req.tpot_ms > 0))
    throw InputError("--tpot-ms", fmt::format("must be more than 0 ms, got {}", req.tpot_ms));
  if (req.given("--ttft-ms") && !(req.ttft_ms >= 0 && req.ttft_ms <= 1e7))
    throw InputError("--ttft-ms", fmt::format("must be 0 (no limit) to 10000000 ms, got {}", req.ttft_ms));
  if (req.given("--tokens-per-user-per-s") && !(req.tokens_per_user > 0))
    throw InputError("--tokens-per-user-per-s", fmt::format("must be more than 0, got {}", req.tokens_per_user));
  if (req.tpot_ms > 0 && req.tokens_per_user > 0)
    throw InputError("--tpot-ms", "give --tpot-ms or --tokens-per-user-per-s, not both (each sets the interactivity the budget is judged at)");
  if (req.pue && !(*req.pue >= 1 && *req.pue <= 3)) throw InputError("--pue", fmt::format("must be 1 to 3, got {}", *req.pue));
  if (req.headroom && !(*req.headroom >= 0 && *req.headroom <= 0.9))
    throw InputError("--headroom", fmt::format("must be a fraction from 0 to 0.9 (fractions throughout, as "
                                               "--cost-of-capital: 25% is 0.25), got {}", *req.headroom));
  deploy::SiteSpec site = deploy::builtin_site_defaults();
  if (!req.site_path.empty()) site = deploy::read_site_file(req.site_path, site);
  if (req.pue) site.pue = *req.pue;
  if (req.headroom) site.headroom = *req.headroom;
  if (req.it_mw > 0) req.power_mw = req.it_mw * site.pue / (1.0 - site.headroom);  // the facility budget that IT needs
  // Far outside the sites that exist: say so rather than buy a million GPUs without a word.
  constexpr double kLargestSitesMw = 1000;  // single AI campuses in operation reach the 1 GW class (2025)
  if (req.power_mw > kLargestSitesMw && output.notes)
    *output.notes << fmt::format("warning: a {:g} MW facility budget is {:.1f}x the ~1,000 MW of the largest AI sites "
                             "in operation; the GPUs and throughput below extrapolate far beyond any built site\n",
                             req.power_mw, req.power_mw / kLargestSitesMw);
  nlohmann::json j;
  j["site"] = {{"name", req.site_path.empty() ? "" : site.name}, {"pue", site.pue}, {"headroom", site.headroom},
               {"total_power_w", site.total_power_w}};
  std::vector<std::string> budget_systems;
  if (!req.cluster_path.empty()) {
    const schedule::ClusterSpec spec = schedule::read_cluster_file(req.cluster_path, catalog_resolver(catalog));
    std::vector<std::pair<deploy::UnitPower, int>> groups;
    for (std::size_t i = 0; i < spec.groups.size(); ++i) {
      const auto& g = spec.groups[i];
      const System* s = catalog.find_system(g.system);
      if (!s) throw InputError(fmt::format("{}: systems[{}].system", req.cluster_path, i),
                               "site planning needs a catalog system (its power and cooling), got '" + g.system + "'");
      groups.emplace_back(deploy::unit_power(power_input(catalog, *s), site), g.count);
      budget_systems.push_back(s->name);
    }
    if (req.site_path.empty()) {  // no site: power only, one position per rack of any kind
      site.positions.clear();
      for (const auto& [u, n] : groups)
        site.positions.push_back({"any-" + std::string(u.cooling == Cooling::liquid ? "liquid" : "air"), 1000000,
                                  u.cooling, std::max(u.rack_w(), u.unit_w()), 0});
    }
    const deploy::SiteFit fit = deploy::fit_site(groups, site);
    nlohmann::json gj = nlohmann::json::array();
    for (std::size_t i = 0; i < fit.groups.size(); ++i) {
      const auto& g = fit.groups[i];
      const auto& c = fit.capacity[i];
      auto e = unit_json(g.power);
      e.update({{"requested_units", g.requested}, {"placed_units", g.placed}, {"positions_used", g.racks},
                {"units_per_position", units_per_position_placed(g)},
                {"per_position_w", units_per_position_placed(g) * g.power.unit_w()},
                {"site_capacity", {{"units", c.units}, {"gpus", c.gpus}, {"by_positions", c.by_positions},
                                   {"by_power", c.by_power}, {"limit", c.limit}, {"why_not", c.why_not}}}});
      gj.push_back(e);
    }
    // What has to change: the fabric of each group (its own scale-out network), then the retrofit.
    deploy::NetworkLoad net;
    const fabric::FabricCatalog& fc = fabric::FabricCatalog::builtin();
    for (const auto& [u, n] : groups) {
      const System& sys = catalog.system(u.system);
      const fabric::FabricKind* kind = fc.kind_for_network(sys.scaleout_network);
      if (!kind || n <= 0) continue;
      const fabric::FabricResult f =
          fabric::plan_fabric(fc, *kind, fabric::spec_for_system(catalog, sys, *kind, 1LL * n * u.gpus));
      if (!f.feasible()) continue;
      net.switch_rack_units += f.switch_rack_units;
      net.power_w += f.switch_power_w + f.optics_power_w;
    }
    const deploy::Retrofit rf = deploy::plan_retrofit(groups, site, net, deploy::builtin_retrofit_defaults());
    nlohmann::json rpos = nlohmann::json::array(), rfloor = nlohmann::json::array();
    for (const auto& p : rf.positions)
      rpos.push_back({{"cooling", p.cooling == Cooling::liquid ? "liquid" : "air"}, {"max_position_w", p.max_position_w},
                      {"needed", p.needed}, {"available", p.available}, {"to_add", p.to_add()},
                      {"circuits_per_position", p.circuits_per_position}});
    for (const auto& f : rf.floor)
      rfloor.push_back({{"system", f.system}, {"rack_kg", f.rack_kg}, {"kg_per_m2", f.kg_per_m2}, {"source", f.source}});
    j["retrofit"] = {{"positions", rpos}, {"liquid_heat_w", rf.liquid_heat_w}, {"cdu_capacity_w", rf.cdu_capacity_w},
                     {"cdu_to_add_w", rf.cdu_to_add_w}, {"water_flow_kg_per_s", rf.water_flow_kg_per_s},
                     {"water_delta_t_k", rf.water_delta_t_k}, {"feed_needed_w", rf.feed_needed_w},
                     {"circuit_w", rf.circuit_w}, {"circuits", rf.circuits},
                     {"feed_to_add_w", rf.feed_to_add_w}, {"switch_racks", rf.switch_racks},
                     {"network_w", rf.switch_racks_w}, {"floor", rfloor},
                     {"liquid_retrofit_usd_order", rf.liquid_retrofit_usd},
                     {"liquid_retrofit_basis", "assumption: $/kW of CDU capacity added (data/deploy/retrofit.yaml)"},
                     {"changes", rf.changes}};
    nlohmann::json vj = nlohmann::json::array();
    for (const auto& v : fit.violations) vj.push_back({{"code", v.code}, {"subject", v.subject}, {"message", v.message}});
    j["cluster"] = {{"name", spec.name}, {"groups", gj}, {"it_w", fit.it_w}, {"facility_w", fit.facility_w},
                    {"planned_feed_w", fit.planned_w}, {"positions_used", fit.positions_used},
                    {"fits", fit.fits()}, {"violations", vj}};
    if (!output.json()) {
      output.os() << fmt::format("Cluster {} on site {} (PUE {:.2f}, headroom {:.0f}%)\n\n", spec.name,
                               req.site_path.empty() ? "(none: power only)" : site.name, site.pue, site.headroom * 100);
      output.os() << fmt::format("{:<14} {:>6} {:>6} {:>7} {:>10} {:>9} {:>9} {:>9} {:>9} {:>10} {:>8}\n", "system",
                               "units", "placed", "cooling", "unit", "GPU", "NIC", "host", "sw+stor", "per pos.",
                               "fit max");
      for (std::size_t i = 0; i < fit.groups.size(); ++i) {
        const auto& g = fit.groups[i];
        const auto& u = g.power;
        output.os() << fmt::format(
            "{:<14} {:>6} {:>6} {:>7} {:>10} {:>9} {:>9} {:>9} {:>9} {:>10} {:>8}\n", u.system, g.requested, g.placed,
            u.cooling == Cooling::liquid ? "liquid" : "air", kilowatts_text(u.unit_w(), 1), kilowatts_text(u.gpu_w, 1),
            kilowatts_text(u.nic_w, 1), kilowatts_text(u.host_w, 1), kilowatts_text(u.switch_w + u.storage_w, 1),
            kilowatts_text(units_per_position_placed(g) * u.unit_w(), 1),
            req.site_path.empty() ? std::string("-") : std::to_string(fit.capacity[i].units));
      }
      output.os() << fmt::format("\nIT power {} (with scale-out switches {:.0f}% and storage {:.0f}%), facility {} "
                               "at PUE {:.2f}, feed to plan {} with {:.0f}% headroom",
                               mw(fit.it_w), site.scaleout_switch_share * 100, site.storage_share * 100,
                               mw(fit.facility_w), site.pue, mw(fit.planned_w), site.headroom * 100);
      if (site.total_power_w > 0) output.os() << fmt::format("; site feed {}", mw(site.total_power_w));
      output.os() << fmt::format(".\nPositions used: {}.\n", fit.positions_used);
      if (fit.fits()) output.os() << "Fits.\n";
      for (const auto& v : fit.violations) output.os() << "Does not fit: " << v.message << "\n";
      output.os() << "\nWhat has to change (or be checked):\n";
      for (const auto& line : rf.changes) output.os() << "  - " << line << "\n";
      if (!req.site_path.empty()) {
        output.os() << "\nThe site alone holds (units of each system, by positions and by feed):\n";
        for (const auto& c : fit.capacity)
          output.os() << fmt::format("  {:<14} {:>6} units, {:>7} GPUs (limit: {}){}\n", c.system, c.units, c.gpus,
                                   c.limit, c.why_not.empty() ? "" : "; " + c.why_not);
      }
    }
  }
  if (req.power_mw > 0) {
    std::vector<double> shares;  // of the budget, per system (a mixed fleet); empty: each system alone
    if (!req.mix_text.empty()) {
      if (!req.systems_text.empty()) throw InputError("--mix", "give --mix or --systems, not both");
      budget_systems.clear();
      double total = 0;
      std::string cur;
      for (char ch : req.mix_text + ",") {
        if (ch != ',') { cur += ch; continue; }
        if (cur.empty())
          throw InputError("--mix", "has an empty item; give SYSTEM:PERCENT items separated by single commas");
        const auto colon = cur.find(':');
        if (colon == std::string::npos)
          throw InputError("--mix", fmt::format("'{}' is not SYSTEM:PERCENT (e.g. gb300-nvl72:70)", cur));
        double pct = 0;
        size_t used = 0;
        const std::string v = cur.substr(colon + 1);
        try { pct = std::stod(v, &used); } catch (...) { used = 0; }
        if (used == 0 || used != v.size() || !(pct > 0 && pct <= 100))
          throw InputError("--mix", fmt::format("share '{}' of {} must be a percentage above 0 and at most 100", v,
                                                cur.substr(0, colon)));
        const std::string& mixed = catalog.system(cur.substr(0, colon), "--mix").name;
        if (std::find(budget_systems.begin(), budget_systems.end(), mixed) != budget_systems.end())
          throw InputError("--mix", fmt::format("{} is given twice; give each system once", mixed));
        budget_systems.push_back(mixed);
        shares.push_back(pct / 100.0);
        total += pct;
        cur.clear();
      }
      if (std::abs(total - 100) > 1e-6)
        throw InputError("--mix", fmt::format("the shares add to {:g}%, not 100%", total));
    } else if (!req.systems_text.empty()) {
      budget_systems.clear();
      std::string cur;
      for (char ch : req.systems_text + ",") {
        if (ch != ',') { cur += ch; continue; }
        if (cur.empty())
          throw InputError("--systems", "has an empty item; give system names separated by single commas");
        if (std::find(budget_systems.begin(), budget_systems.end(), cur) != budget_systems.end())
          throw InputError("--systems", fmt::format("{} is given twice; give each system once", echo_name(cur)));
        budget_systems.push_back(cur);
        cur.clear();
      }
    } else if (budget_systems.empty()) {
      budget_systems = {"hgx-h100", "hgx-h200", "hgx-b200", "hgx-b300", "gb200-nvl72", "gb300-nvl72"};
    }
    auto p = parse_precision(req.precision);
    if (!p) throw InputError("--precision", fmt::format("must be bf16, fp8, mxfp8 or nvfp4, got '{}'", req.precision));
    if (const std::string why = training_refusal(*p); !why.empty()) throw InputError("--precision", why);
    const ModelArch model = resolve_model(req.model_name, "--model");
    const BatchChoice batch = choose_global_batch(model, req.seq, req.given("--global-batch") ? req.global_batch : 0);
    InferencePoint ip;
    ip.model = resolve_model(req.infer_model_name, "--infer-model");
    auto ipp = parse_precision(req.infer_precision);
    if (!ipp || *ipp == Precision::mxfp8)
      throw InputError("--infer-precision", fmt::format("must be bf16, fp8, fp4 or w4a16, got '{}'", req.infer_precision));
    ip.weights = *ipp;
    ip.isl = req.isl;
    ip.osl = req.osl;
    ip.mtp_accept = catalog_mtp_accept(catalog);
    ip.tokens_per_s_per_user = req.tokens_per_user > 0 ? req.tokens_per_user : 0.0;
    ip.tpot_limit_s = req.tpot_ms > 0 ? req.tpot_ms / 1e3 : 0.0;
    ip.ttft_limit_s = req.given("--ttft-ms") ? req.ttft_ms / 1e3 : -1;
    const double ttft_limit_s = resolve_ttft_limit_s(ip.ttft_limit_s, ip.isl);
    std::vector<std::string> limit_parts;
    if (ip.tokens_per_s_per_user > 0)
      limit_parts.push_back(fmt::format(">= {:.3g} tokens/s per user", ip.tokens_per_s_per_user));
    if (ip.tpot_limit_s > 0) limit_parts.push_back(fmt::format("TPOT <= {:.3g} ms", ip.tpot_limit_s * 1e3));
    if (ttft_limit_s > 0)
      limit_parts.push_back(fmt::format("TTFT <= {:.3g} ms{}", ttft_limit_s * 1e3,
                                        req.given("--ttft-ms") ? "" : " (default: MLPerf Server limits by ISL)"));
    if (ip.tokens_per_s_per_user == 0 && ip.tpot_limit_s == 0) limit_parts.push_back("highest throughput");
    std::string limits;
    for (const std::string& part : limit_parts) limits += (limits.empty() ? "" : ", ") + part;
    const double budget_w = req.power_mw * 1e6;
    nlohmann::json bj = nlohmann::json::array();
    if (!output.json())
      output.os() << fmt::format("{}Power budget {} (PUE {:.2f}, headroom {:.0f}%: {} of IT); training {} at seq {} {}; "
                               "serving {} {} ISL/OSL {}/{}, {}\n\n",
                               req.cluster_path.empty() ? "" : "\n", mw(budget_w), site.pue, site.headroom * 100,
                               mw(budget_w * (1 - site.headroom) / site.pue), model.name, req.seq, req.precision,
                               ip.model.name, req.infer_precision, req.isl, req.osl, limits)
                << "training " << batch_line(batch, req.seq) << "\n"
                << fmt::format("{:<14} {:>6} {:>7} {:>10} | {:>10} {:>11}  {:<36}| {:>10} {:>11}  {}\n", "", "", "",
                               "", "training", "", "", "serving", "", "")
                << fmt::format("{:<14} {:>6} {:>7} {:>10} | {:>10} {:>11}  {:<36}| {:>10} {:>11}  {}\n", "system",
                               "units", "GPUs", "IT/unit", "tokens/s", "tok/s/MW", "plan (at GPUs)",
                               "tokens/s", "tok/s/MW", "deployment, sequences, at");
    std::string band_lines, note_lines;
    for (std::size_t i = 0; i < budget_systems.size(); ++i) {
      const System& s = catalog.system(budget_systems[i], "--systems");
      const auto u = deploy::unit_power(power_input(catalog, s), site);
      const double share = shares.empty() ? 1.0 : shares[i];
      const double part_mw = req.power_mw * share;
      const int units = deploy::units_for_budget(u, budget_w * share, site);
      const int gpus = units * u.gpus;
      const Throughput t = training_throughput(catalog, model, s, gpus, req.seq, batch.sequences, *p);
      const double tps = t.tokens_per_s_per_gpu * gpus;  // per-GPU rate at the reference scale, times GPUs
      const ServingThroughput sv = units > 0 ? serving_throughput(catalog, s, ip) : ServingThroughput{};
      const double per_gpu = sv.feasible ? sv.point->result.tokens_per_s_per_gpu : 0.0;
      const double serve_tps = per_gpu * gpus;
      nlohmann::json serving = {{"feasible", sv.feasible}, {"output_tokens_per_s", serve_tps},
                                {"output_tokens_per_s_per_mw", serve_tps / part_mw},
                                {"tokens_per_s_per_gpu", per_gpu}, {"swept_gpus", sv.swept_gpus}};
      if (sv.feasible) {
        const SweepPoint& pt = *sv.point;
        serving.update({{"parallel", {{"tp", pt.parallel.tp}, {"ep", pt.parallel.ep}, {"pp", pt.parallel.pp},
                                      {"attention_dp", pt.parallel.attention_dp}}},
                        {"kind", pt.kind()}, {"disaggregated", pt.disaggregated}, {"mtp_draft_tokens", pt.mtp_draft_tokens},
                        {"plan", pt.plan()}, {"concurrency", pt.concurrency},
                        {"tokens_per_s_per_user", pt.result.tokens_per_s_per_user}, {"ttft_s", pt.result.ttft_s},
                        {"tpot_s", pt.result.tpot_s}});
        if (!sv.precision_note.empty()) {
          serving["precision_note"] = sv.precision_note;
          note_lines += fmt::format("  {:<14} {}\n", s.name, sv.precision_note);
        }
      } else {
        serving["why_not"] = units > 0 ? sv.why_not : "the budget buys no whole unit";
      }
      // Error bands of the two throughputs: the held-out band of each kind on this system's generation,
      // widened where the question (precision, GPUs, model) is off the ground it was fitted on.
      const std::string& gen = catalog.accelerator(s.accelerator).generation;
      BandQuestion tq = band_question(*p, model, gpus), sq = band_question(ip.weights, ip.model, sv.swept_gpus);
      tq.accelerator = sq.accelerator = s.accelerator;
      const BandedFigure tband =
          with_band(tps, band_for(catalog.error_bands(), training_band_kind(model.is_moe()), gen, tq));
      const bool disagg = sv.feasible && sv.point->disaggregated;
      const BandedFigure sband = with_band(
          serve_tps, band_for(catalog.error_bands(), serving_band_kind(disagg, ServingFigure::throughput), gen, sq));
      if (sv.feasible) serving["band"] = band_json(sband);
      band_lines += fmt::format("  {:<14} training {}; serving {}\n", s.name, band_text(tband),
                                sv.feasible ? band_text(sband) : std::string("-"));
      bj.push_back({{"system", s.name}, {"units", units}, {"gpus", gpus}, {"it_w_per_unit", u.it_w()},
                    {"budget_share", share}, {"budget_w", budget_w * share},
                    {"training_tokens_per_s", tps}, {"training_tokens_per_s_per_mw", tps / part_mw},
                    {"tokens_per_s_per_gpu", t.tokens_per_s_per_gpu}, {"plan", t.plan},
                    {"searched_at_gpus", t.ref_gpus}, {"serving", serving}});
      if (t.tokens_per_s_per_gpu > 0) bj.back()["training_band"] = band_json(tband);
      if (!output.json())
        output.os() << fmt::format("{:<14} {:>6} {:>7} {:>10} | {:>10.3g} {:>11.3g}  {:<36}| {:>10.3g} {:>11.3g}  {}\n",
                                   shares.empty() ? s.name : fmt::format("{} {:g}%", s.name, share * 100), units, gpus,
                                   kilowatts_text(u.it_w(), 1), tps, tps / part_mw,
                                   t.plan.empty() ? "-" : fmt::format("{} ({})", compact_plan(t.plan), t.ref_gpus),
                                   serve_tps, serve_tps / part_mw,
                                   sv.feasible ? serving_plan_text(sv) : "- " + serving["why_not"].get<std::string>());
    }
    j["budget"] = {{"power_w", budget_w}, {"model", model.name}, {"seq_len", req.seq}, {"precision", req.precision},
                   {"global_batch", batch.sequences}, {"global_batch_basis", batch_json(batch, req.seq)},
                   {"serving", {{"model", ip.model.name}, {"precision", req.infer_precision}, {"isl", req.isl}, {"osl", req.osl},
                                {"tokens_per_s_per_user", ip.tokens_per_s_per_user},
                                {"tpot_limit_s", ip.tpot_limit_s}, {"ttft_limit_s", ttft_limit_s},
                                {"ttft_basis", ttft_limit_basis(ip.ttft_limit_s, ip.isl)}}},
                   {"systems", bj}, {"mixed_fleet", !shares.empty()}};
    if (!output.json())
      output.os() << "\nTraining: best searched plan's tokens/s per GPU at up to 1,024 GPUs, times the GPUs the budget "
                   "buys (no scale-out loss beyond that). Serving: output tokens/s per GPU of the best deployment "
                   "(aggregated or, for MoE models, disaggregated, EP widths, MTP), its load solved for the interactivity "
                   "within the TTFT limit, on the units it needs (the chooser of infer, cost and compare), times the GPUs. Per MW of the facility budget (of its part, with --mix).\n"
                << "Error bands of the throughputs (80%, held-out):\n" << band_lines
                << (note_lines.empty() ? std::string() : "Serving notes:\n" + note_lines);
  }
  if (output.json()) output.emit("site", std::move(j));
  return kExitOk;
}


}  // namespace gpuplan::api
