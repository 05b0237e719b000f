// gpuplan site: will the site hold the cluster (power, cooling, positions), and what a power budget buys.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/error.h"
#include "deploy/site.h"
#include "model/model_registry.h"
#include "physics/hardware.h"
#include "schedule/cluster_yaml.h"
#include "search/search.h"

namespace gpuplan::cli {

schedule::SystemResolver catalog_resolver(const Catalog& catalog);  // cmd_schedule.cc

namespace site_detail {  // named, not anonymous: the CLI is a unity build

deploy::SystemPowerInput power_input(const Catalog& catalog, const System& s) {
  const Accelerator& a = catalog.accelerator(s.accelerator);
  return {s.name, s.display_name, s.gpus_per_node, s.nodes, s.power_w, a.tdp_w, s.cooling, s.rack_units.value_or(0)};
}

std::string kw(double w) { return fmt::format("{:.1f} kW", w / 1e3); }
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
                               int seq, Precision precision) {
  Throughput t;
  const int unit = s.gpus_per_unit();
  const int units = std::max(1, std::min(max_gpus, 1024) / unit);
  t.ref_gpus = units * unit;
  if (max_gpus < unit) return t;
  TrainingWorkload w;
  w.num_gpus = t.ref_gpus;
  w.global_batch = 2LL * t.ref_gpus;
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

}  // namespace site_detail

int cmd_site(int argc, char** argv) {
  using namespace site_detail;
  CLI::App app{"Site fit: IT power per rack and in total (GPU, NIC, host, switch and storage shares), facility "
               "power with PUE and planner headroom, against the site's positions (kW and cooling per position, "
               "CDU capacity) and feed; what does not fit and why, and how many racks of each system fit. With "
               "--power-mw: how many GPUs of each system a budget buys and the training throughput (tokens/s per MW).",
               "gpuplan site"};
  CommonOptions common;
  add_common_options(app, common);
  std::string cluster_path, site_path, model_name = "llama3.1-70b", precision = "bf16", systems_text;
  double power_mw = 0, pue = 0, headroom_pct = -1;
  int seq = 8192;
  app.add_option("--cluster", cluster_path, "Cluster file (gpuplan.cluster/v1, as `gpuplan schedule --cluster`)");
  app.add_option("--site", site_path, "Site file (gpuplan.site/v1): positions, cooling, kW, CDUs, feed");
  app.add_option("--power-mw", power_mw, "Facility power budget in MW: GPUs and throughput it buys per system");
  app.add_option("--systems", systems_text, "Comma-separated systems for --power-mw (default: the cluster's, or "
                                            "hgx-h100,hgx-h200,hgx-b200,hgx-b300,gb200-nvl72,gb300-nvl72)");
  app.add_option("--model", model_name, "Model for the throughput a budget buys")->capture_default_str();
  app.add_option("--seq", seq, "Sequence length for the throughput")->capture_default_str();
  app.add_option("--precision", precision, "bf16, fp8, mxfp8 or nvfp4")->capture_default_str();
  app.add_option("--pue", pue, "Power usage effectiveness (overrides the site file and the 1.3 default)");
  app.add_option("--headroom", headroom_pct, "Share of the feed kept unused, percent (default 25)");
  if (int rc = parse_args(app, argc, argv); rc >= 0) return rc;
  return run_guarded([&] {
    if (cluster_path.empty() && power_mw <= 0)
      throw InputError("--cluster", "give a cluster file (--cluster) or a power budget (--power-mw)");
    if (power_mw < 0 || power_mw > 1e5) throw InputError("--power-mw", fmt::format("must be 0 to 100000, got {}", power_mw));
    if (pue != 0 && (pue < 1 || pue > 3)) throw InputError("--pue", fmt::format("must be 1 to 3, got {}", pue));
    if (headroom_pct != -1 && (headroom_pct < 0 || headroom_pct > 90))
      throw InputError("--headroom", fmt::format("must be 0 to 90 percent, got {}", headroom_pct));
    const Catalog catalog = load_catalog(common);
    deploy::SiteSpec site = deploy::builtin_site_defaults();
    if (!site_path.empty()) site = deploy::read_site_file(site_path, site);
    if (pue > 0) site.pue = pue;
    if (headroom_pct >= 0) site.headroom = headroom_pct / 100.0;
    nlohmann::json j;
    j["site"] = {{"name", site_path.empty() ? "" : site.name}, {"pue", site.pue}, {"headroom", site.headroom},
                 {"total_power_w", site.total_power_w}};
    std::vector<std::string> budget_systems;
    if (!cluster_path.empty()) {
      const schedule::ClusterSpec spec = schedule::read_cluster_file(cluster_path, catalog_resolver(catalog));
      std::vector<std::pair<deploy::UnitPower, int>> groups;
      for (std::size_t i = 0; i < spec.groups.size(); ++i) {
        const auto& g = spec.groups[i];
        const System* s = catalog.find_system(g.system);
        if (!s) throw InputError(fmt::format("{}: systems[{}].system", cluster_path, i),
                                 "site planning needs a catalog system (its power and cooling), got '" + g.system + "'");
        groups.emplace_back(deploy::unit_power(power_input(catalog, *s), site), g.count);
        budget_systems.push_back(s->name);
      }
      if (site_path.empty()) {  // no site: power only, one position per rack of any kind
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
                  {"site_capacity", {{"units", c.units}, {"gpus", c.gpus}, {"by_positions", c.by_positions},
                                     {"by_power", c.by_power}, {"limit", c.limit}, {"why_not", c.why_not}}}});
        gj.push_back(e);
      }
      nlohmann::json vj = nlohmann::json::array();
      for (const auto& v : fit.violations) vj.push_back({{"code", v.code}, {"subject", v.subject}, {"message", v.message}});
      j["cluster"] = {{"name", spec.name}, {"groups", gj}, {"it_w", fit.it_w}, {"facility_w", fit.facility_w},
                      {"planned_feed_w", fit.planned_w}, {"positions_used", fit.positions_used},
                      {"fits", fit.fits()}, {"violations", vj}};
      if (!common.json) {
        std::cout << fmt::format("Cluster {} on site {} (PUE {:.2f}, headroom {:.0f}%)\n\n", spec.name,
                                 site_path.empty() ? "(none: power only)" : site.name, site.pue, site.headroom * 100);
        std::cout << fmt::format("{:<14} {:>6} {:>6} {:>7} {:>10} {:>9} {:>9} {:>9} {:>9} {:>10} {:>8}\n", "system",
                                 "units", "placed", "cooling", "unit", "GPU", "NIC", "host", "sw+stor", "per rack",
                                 "fit max");
        for (std::size_t i = 0; i < fit.groups.size(); ++i) {
          const auto& g = fit.groups[i];
          const auto& u = g.power;
          std::cout << fmt::format("{:<14} {:>6} {:>6} {:>7} {:>10} {:>9} {:>9} {:>9} {:>9} {:>10} {:>8}\n", u.system,
                                   g.requested, g.placed, u.cooling == Cooling::liquid ? "liquid" : "air",
                                   kw(u.unit_w()), kw(u.gpu_w), kw(u.nic_w), kw(u.host_w),
                                   kw(u.switch_w + u.storage_w), kw(u.rack_w()),
                                   site_path.empty() ? std::string("-") : std::to_string(fit.capacity[i].units));
        }
        std::cout << fmt::format("\nIT power {} (with scale-out switches {:.0f}% and storage {:.0f}%), facility {} "
                                 "at PUE {:.2f}, feed to plan {} with {:.0f}% headroom",
                                 mw(fit.it_w), site.scaleout_switch_share * 100, site.storage_share * 100,
                                 mw(fit.facility_w), site.pue, mw(fit.planned_w), site.headroom * 100);
        if (site.total_power_w > 0) std::cout << fmt::format("; site feed {}", mw(site.total_power_w));
        std::cout << fmt::format(".\nPositions used: {}.\n", fit.positions_used);
        if (fit.fits()) std::cout << "Fits.\n";
        for (const auto& v : fit.violations) std::cout << "Does not fit: " << v.message << "\n";
        if (!site_path.empty()) {
          std::cout << "\nThe site alone holds (units of each system, by positions and by feed):\n";
          for (const auto& c : fit.capacity)
            std::cout << fmt::format("  {:<14} {:>6} units, {:>7} GPUs (limit: {}){}\n", c.system, c.units, c.gpus,
                                     c.limit, c.why_not.empty() ? "" : "; " + c.why_not);
        }
      }
    }
    if (power_mw > 0) {
      if (!systems_text.empty()) {
        budget_systems.clear();
        std::string cur;
        for (char ch : systems_text + ",") {
          if (ch == ',') { if (!cur.empty()) budget_systems.push_back(cur); cur.clear(); }
          else cur += ch;
        }
      } else if (budget_systems.empty()) {
        budget_systems = {"hgx-h100", "hgx-h200", "hgx-b200", "hgx-b300", "gb200-nvl72", "gb300-nvl72"};
      }
      auto p = parse_precision(precision);
      if (!p) throw InputError("--precision", fmt::format("must be bf16, fp8, mxfp8 or nvfp4, got '{}'", precision));
      const ModelArch model = resolve_model(model_name, "--model");
      const double budget_w = power_mw * 1e6;
      nlohmann::json bj = nlohmann::json::array();
      if (!common.json)
        std::cout << fmt::format("{}Power budget {} (PUE {:.2f}, headroom {:.0f}%: {} of IT), training {} at seq {} "
                                 "{}\n\n{:<14} {:>7} {:>8} {:>10} {:>13} {:>14}  {}\n",
                                 cluster_path.empty() ? "" : "\n", mw(budget_w), site.pue, site.headroom * 100,
                                 mw(budget_w * (1 - site.headroom) / site.pue), model.name, seq, precision, "system",
                                 "units", "GPUs", "IT/unit", "tokens/s", "tokens/s/MW", "plan (searched at)");
      for (std::size_t i = 0; i < budget_systems.size(); ++i) {
        const System& s = catalog.system(budget_systems[i], "--systems");
        const auto u = deploy::unit_power(power_input(catalog, s), site);
        const int units = deploy::units_for_budget(u, budget_w, site);
        const int gpus = units * u.gpus;
        const Throughput t = training_throughput(catalog, model, s, gpus, seq, *p);
        const double tps = t.tokens_per_s_per_gpu * gpus;  // per-GPU rate at the reference scale, times GPUs
        bj.push_back({{"system", s.name}, {"units", units}, {"gpus", gpus}, {"it_w_per_unit", u.it_w()},
                      {"training_tokens_per_s", tps}, {"training_tokens_per_s_per_mw", tps / power_mw},
                      {"tokens_per_s_per_gpu", t.tokens_per_s_per_gpu}, {"plan", t.plan},
                      {"searched_at_gpus", t.ref_gpus}});
        if (!common.json)
          std::cout << fmt::format("{:<14} {:>7} {:>8} {:>10} {:>13.3g} {:>14.4g}  {} ({} GPUs)\n", s.name, units, gpus,
                                   kw(u.it_w()), tps, tps / power_mw, t.plan.empty() ? "-" : t.plan, t.ref_gpus);
      }
      j["budget"] = {{"power_w", budget_w}, {"model", model.name}, {"seq_len", seq}, {"precision", precision},
                     {"systems", bj}};
      if (!common.json)
        std::cout << "\nThroughput: best searched plan's tokens/s per GPU at up to 1,024 GPUs, times the GPUs the "
                     "budget buys (no scale-out loss beyond that).\n";
    }
    if (common.json) print_json("site", j);
    return kExitOk;
  });
}

}  // namespace gpuplan::cli
