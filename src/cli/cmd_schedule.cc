// gpuplan schedule: replay a trace on a cluster under placement policies, side by side.
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/fabric_options.h"
#include "core/error.h"
#include "core/suggest.h"
#include "model/model_registry.h"
#include "physics/hardware.h"
#include "schedule/cluster_yaml.h"
#include "schedule/simulator.h"
#include "schedule/timeline.h"
#include "schedule/trace.h"
#include "schedule/training_slowdown.h"

namespace gpuplan::cli {

// Resolves cluster-file system names through the catalog (the only place the catalog is needed).
schedule::SystemResolver catalog_resolver(const Catalog& catalog) {
  return [&catalog](const std::string& name, const std::string& field) -> std::optional<schedule::SystemShape> {
    if (const System* s = catalog.find_system(name)) return schedule::SystemShape{s->gpus_per_node, s->nodes, s->nvlink_domain_gpus};
    std::vector<std::string> names;
    for (const auto& s : catalog.systems()) names.push_back(s.name);
    if (names.empty()) return std::nullopt;
    throw InputError(field, "unknown system '" + name + "'" + did_you_mean(name, names) +
                                " (or give gpus_per_node, nodes and nvlink_domain_gpus)");
  };
}

namespace {

std::string hours(double s) { return fmt::format("{:.1f} h", s / 3600.0); }
std::string pct(double x) { return fmt::format("{:.1f}%", 100.0 * x); }

nlohmann::json metrics_json(const schedule::SimResult& r) {
  const auto& m = r.metrics;
  return {{"policy", r.policy},
          {"jobs", m.jobs},
          {"skipped", m.skipped},
          {"utilisation", m.utilisation},
          {"avg_jct_s", m.avg_jct_s},
          {"p99_jct_s", m.p99_jct_s},
          {"avg_queueing_delay_s", m.avg_wait_s},
          {"p99_queueing_delay_s", m.p99_wait_s},
          {"makespan_s", m.makespan_s},
          {"fragmentation", m.fragmentation},
          {"multi_gpu_jobs", m.multi_gpu_jobs},
          {"multi_gpu_jobs_in_one_domain", m.one_domain_jobs},
          {"one_domain_share", m.one_domain_share},
          {"split_jobs", m.split_jobs},
          {"gpu_hours", m.gpu_hours},
          {"gpu_hours_lost_to_cross_domain", m.gpu_hours_lost},
          {"preemptions", m.preemptions}};
}

}  // namespace

int cmd_schedule(int argc, char** argv) {
  CLI::App app{"Replay a job trace on a cluster under scheduling policies (FIFO first-fit, best-fit, "
               "NVLink-domain-aware), with optional EASY backfill and pre-emption; prints the metrics side by side",
               "gpuplan schedule"};
  CommonOptions common;
  add_common_options(app, common);
  std::string cluster_path, trace = "generated", policy = "all", write_trace;
  bool backfill = false, preempt = false;
  int jobs_limit = 0;
  uint64_t seed = 1;
  double load = 0.9, slowdown_pct = -1;
  app.add_option("--cluster", cluster_path, "Cluster YAML (see examples/clusters/ and docs/schedule.md)")->required();
  app.add_option("--trace", trace, "Trace CSV (Philly or gpuplan format), or 'generated' for a seeded LLM job mix")
      ->capture_default_str();
  app.add_option("--policy", policy, "fifo | best-fit | domain-aware | all")->capture_default_str();
  app.add_flag("--backfill", backfill, "EASY backfill on top of each policy");
  app.add_flag("--preempt", preempt, "Training pre-empts running inference services (preemptible jobs)");
  app.add_option("--jobs", jobs_limit, "Only the first N jobs in submit order (generated: how many; default 2000)")
      ->check(CLI::Range(1, 100000000));
  app.add_option("--seed", seed, "Seed of the generated job mix")->capture_default_str();
  app.add_option("--load", load, "Offered load of the generated mix (GPU demand / capacity)")->capture_default_str();
  app.add_option("--cross-domain-slowdown", slowdown_pct,
                 "Fixed percent a job with a group split across NVLink domains runs slower, instead of the training "
                 "model's figure (the default: Llama 3.1 8B on the cluster's first system; see docs/schedule.md)")
      ->check(CLI::Range(0.0, 1000.0));
  std::string slowdown_model, slowdown_system;
  app.add_option("--slowdown-model", slowdown_model,
                 "Take the cross-domain slowdown from the training model: a reference model (e.g. llama3.1-8b) "
                 "whose TP/DP group is split over two NVLink domains; needs --slowdown-system");
  app.add_option("--slowdown-system", slowdown_system, "System (e.g. hgx-h100) the reference model runs on");
  FabricOptions fabric_opts;
  add_fabric_options(app, fabric_opts);
  app.add_option("--write-trace", write_trace, "Also write the jobs replayed, in gpuplan trace format");
  int timeline_bins = 0;
  app.add_option("--timeline", timeline_bins,
                 "With --json: add each policy's utilisation over time in this many intervals (what `gpuplan report "
                 "schedule` draws)")
      ->check(CLI::Range(1, 10000));
  if (int rc = parse_args(app, argc, argv); rc >= 0) return rc;
  return run_guarded([&] {
    std::vector<std::unique_ptr<schedule::PlacementPolicy>> policies;
    if (policy == "all")
      for (const auto& n : schedule::policy_names()) policies.push_back(schedule::make_policy(n));
    else
      policies.push_back(schedule::make_policy(policy));
    const Catalog catalog = load_catalog(common);
    const schedule::Cluster cluster(schedule::read_cluster_file(cluster_path, catalog_resolver(catalog)));
    std::vector<schedule::Job> jobs;
    if (trace == "generated") {
      schedule::MixOptions m;
      m.seed = seed;
      m.jobs = jobs_limit > 0 ? jobs_limit : 2000;
      m.cluster_gpus = cluster.total_gpus();
      m.offered_load = load;
      jobs = schedule::generate_llm_mix(m);
    } else {
      jobs = schedule::read_trace_file(trace);
      if (jobs_limit > 0 && static_cast<size_t>(jobs_limit) < jobs.size()) jobs.resize(jobs_limit);
    }
    if (!write_trace.empty()) {
      std::ofstream f(write_trace);
      if (!f) throw InputError("--write-trace", "cannot write '" + write_trace + "'");
      f << schedule::write_trace_csv(jobs);
    }
    schedule::SimOptions opt;
    opt.backfill = backfill;
    opt.preempt = preempt;
    if (slowdown_pct >= 0) opt.slowdown = schedule::fixed_slowdown(slowdown_pct / 100.0);
    double effective_pct = slowdown_pct >= 0 ? slowdown_pct : 32.0;
    if (slowdown_model.empty() != slowdown_system.empty())
      throw InputError(slowdown_model.empty() ? "--slowdown-model" : "--slowdown-system",
                       "--slowdown-model and --slowdown-system go together");
    if (!slowdown_model.empty() && slowdown_pct >= 0)
      throw InputError("--cross-domain-slowdown", "give either a fixed slowdown or --slowdown-model, not both");
    if (slowdown_pct >= 0 && (app.count("--fabric-oversubscription") || app.count("--fabric-topology")))
      throw InputError("--cross-domain-slowdown", "a fixed slowdown does not see the fabric: drop --fabric-* or use "
                                                  "the training model's slowdown");
    if (slowdown_model.empty() && slowdown_pct < 0) {
      // Default: the training model, with Llama 3.1 8B on the cluster's first catalog system.
      for (const auto& g : cluster.spec().groups)
        if (catalog.find_system(g.system)) {
          slowdown_model = "llama3.1-8b";
          slowdown_system = g.system;
          break;
        }
    }
    if (!slowdown_model.empty()) {
      Hardware hw = resolve_hardware(catalog, slowdown_system);
      apply_fabric_options(catalog, hw, 0, fabric_opts);
      const ModelArch ref = resolve_model(slowdown_model, "--slowdown-model");
      opt.slowdown = schedule::training_slowdown(hw, ref);
      effective_pct = 100.0 * (schedule::training_slowdown_factor(hw, ref, 8) - 1.0);  // shown for a TP=8 group
    }
    const bool tty = isatty(STDERR_FILENO);
    std::vector<schedule::SimResult> results;
    for (const auto& p : policies) {
      if (tty)
        opt.progress = [&, name = std::string(p->name())](double f) {
          std::cerr << fmt::format("\r{:<14} {:5.1f}%", name, 100.0 * f) << std::flush;
        };
      results.push_back(schedule::simulate(cluster, jobs, *p, opt));
      if (tty) std::cerr << "\r\033[K" << std::flush;
    }
    const int skipped = results.front().metrics.skipped;
    if (common.json) {
      nlohmann::json groups = nlohmann::json::array();
      for (const auto& g : cluster.spec().groups)
        groups.push_back({{"system", g.system}, {"count", g.count}, {"gpus_per_node", g.gpus_per_node},
                          {"nodes_per_unit", g.nodes_per_unit}, {"nvlink_domain_gpus", g.domain_gpus}});
      nlohmann::json res = nlohmann::json::array();
      for (const auto& r : results) {
        res.push_back(metrics_json(r));
        if (timeline_bins > 0) {
          const auto t = schedule::utilisation_timeline(r.records, cluster.total_gpus(), timeline_bins);
          res.back()["timeline"] = {{"bin_s", t.bin_s}, {"t_s", t.t_s}, {"utilisation", t.utilisation}};
        }
      }
      print_json("schedule", {{"cluster", {{"name", cluster.spec().name}, {"gpus", cluster.total_gpus()},
                                           {"nodes", cluster.nodes().size()}, {"nvlink_domains", cluster.domains().size()},
                                           {"systems", groups}}},
                              {"trace", {{"source", trace}, {"jobs", jobs.size()}, {"skipped_larger_than_cluster", skipped},
                                         {"seed", trace == "generated" ? nlohmann::json(seed) : nlohmann::json()}}},
                              {"backfill", backfill},
                              {"preempt", preempt},
                              {"cross_domain_slowdown_pct", effective_pct},
                              {"results", res}});
      return kExitOk;
    }
    std::cout << fmt::format("Cluster '{}': {} GPUs, {} nodes, {} NVLink domains\n", cluster.spec().name,
                             cluster.total_gpus(), cluster.nodes().size(), cluster.domains().size());
    std::cout << fmt::format("Trace {}: {} jobs{}\n", trace, jobs.size(),
                             trace == "generated" ? fmt::format(" (seed {}, load {})", seed, load) : "");
    if (skipped > 0)
      std::cout << fmt::format("Skipped {} jobs larger than the cluster ({} GPUs); they are not in the metrics.\n",
                               skipped, cluster.total_gpus());
    if (slowdown_model.empty())
      std::cout << fmt::format("A job with a group split across NVLink domains runs {:.0f}% slower.\n\n", effective_pct);
    else
      std::cout << fmt::format("A job with a group split across NVLink domains runs slower by what the training model "
                               "says ({} on {}): {:.0f}% for a TP=8 group; other group sizes differ.\n\n",
                               slowdown_model, slowdown_system, effective_pct);
    std::vector<std::pair<std::string, std::function<std::string(const schedule::SimResult&)>>> rows = {
        {"jobs completed", [](const auto& r) { return std::to_string(r.metrics.jobs); }},
        {"GPU utilisation", [](const auto& r) { return pct(r.metrics.utilisation); }},
        {"avg JCT", [](const auto& r) { return hours(r.metrics.avg_jct_s); }},
        {"p99 JCT", [](const auto& r) { return hours(r.metrics.p99_jct_s); }},
        {"avg queueing delay", [](const auto& r) { return hours(r.metrics.avg_wait_s); }},
        {"p99 queueing delay", [](const auto& r) { return hours(r.metrics.p99_wait_s); }},
        {"makespan", [](const auto& r) { return hours(r.metrics.makespan_s); }},
        {"fragmentation", [](const auto& r) { return pct(r.metrics.fragmentation); }},
        {"multi-GPU jobs in 1 domain", [](const auto& r) { return pct(r.metrics.one_domain_share); }},
        {"jobs slowed (split groups)", [](const auto& r) { return std::to_string(r.metrics.split_jobs); }},
        {"GPU-h lost to cross-domain", [](const auto& r) { return fmt::format("{:.0f}", r.metrics.gpu_hours_lost); }},
    };
    if (preempt)
      rows.push_back({"pre-emptions", [](const auto& r) { return std::to_string(r.metrics.preemptions); }});
    size_t width = 12;
    for (const auto& r : results) width = std::max(width, r.policy.size());
    std::string line = fmt::format("{:<28}", "metric");
    for (const auto& r : results) line += fmt::format("  {:>{}}", r.policy, width);
    std::cout << line << "\n";
    for (const auto& [label, cell] : rows) {
      line = fmt::format("{:<28}", label);
      for (const auto& r : results) line += fmt::format("  {:>{}}", cell(r), width);
      std::cout << line << "\n";
    }
    return kExitOk;
  });
}

}  // namespace gpuplan::cli
