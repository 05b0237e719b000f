// gpuplan schedule: replay a trace on a cluster under placement policies, side by side.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <optional>

#include "api/schedule.h"
#include "api/text.h"
#include "api/fabric_options.h"
#include "core/error.h"
#include "core/suggest.h"
#include "model/model_registry.h"
#include "physics/hardware.h"
#include "schedule/cluster_yaml.h"
#include "schedule/simulator.h"
#include "schedule/timeline.h"
#include "schedule/trace.h"
#include "schedule/training_slowdown.h"

namespace gpuplan::api {

// Resolves cluster-file system names through the catalog (the only place the catalog is needed).
schedule::SystemResolver catalog_resolver(const Catalog& catalog) {
  return [&catalog](const std::string& name, const std::string& field) -> std::optional<schedule::SystemShape> {
    if (const System* s = catalog.find_system(name)) return schedule::SystemShape{s->gpus_per_node, s->nodes, s->nvlink_domain_gpus};
    std::vector<std::string> names;
    for (const auto& s : catalog.systems()) names.push_back(s.name);
    if (names.empty()) return std::nullopt;
    throw InputError(field, "unknown system '" + echo_name(name) + "'" + did_you_mean(name, names) +
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

void add_schedule_options(CLI::App& app, ScheduleRequest& req) {
  app.description("Replay a job trace on a cluster under scheduling policies (FIFO first-fit, best-fit, "
               "NVLink-domain-aware), with optional EASY backfill and pre-emption; prints the metrics side by side");
  app.add_option("--cluster", req.cluster_path, "Cluster YAML (see examples/clusters/ and docs/schedule.md)")->required();
  app.add_option("--trace", req.trace, "Trace CSV (Philly or gpuplan format), or 'generated' for a seeded LLM job mix")
      ->capture_default_str();
  app.add_option("--policy", req.policy, "fifo | best-fit | domain-aware | all")->capture_default_str();
  app.add_flag("--backfill", req.backfill, "EASY backfill on top of each policy");
  app.add_flag("--preempt", req.preempt, "Training pre-empts running inference services (preemptible jobs)");
  app.add_option("--jobs", req.jobs_limit, "Only the first N jobs in submit order (generated: how many; default 2000)")
      ->check(CLI::Range(1, 100000000));
  app.add_option("--seed", req.seed, "Seed of the generated job mix")->capture_default_str();
  app.add_option("--load", req.load, "Offered load of the generated mix (GPU demand / capacity)")->capture_default_str();
  app.add_option("--cross-domain-slowdown", req.slowdown_pct,
                 "Fixed percent a job with a group split across NVLink domains runs slower, instead of the training "
                 "model's figure (the default: Llama 3.1 8B on the cluster's first system; see docs/schedule.md)")
      ->check(CLI::Range(0.0, 1000.0));
  app.add_option("--slowdown-model", req.slowdown_model,
                 "Take the cross-domain slowdown from the training model: a reference model (e.g. llama3.1-8b) "
                 "whose TP/DP group is split over two NVLink domains; needs --slowdown-system");
  app.add_option("--slowdown-system", req.slowdown_system, "System (e.g. hgx-h100) the reference model runs on");
  add_fabric_options(app, req.fabric_opts);
  app.add_option("--write-trace", req.write_trace, "Also write the jobs replayed, in gpuplan trace format");
  app.add_option("--timeline", req.timeline_bins,
                 "With --json: add each policy's utilisation over time in this many intervals (what `gpuplan report "
                 "schedule` draws)")
      ->check(CLI::Range(1, 10000));
}

int schedule(const Catalog& catalog, ScheduleRequest req, Output& output) {
  std::vector<std::unique_ptr<schedule::PlacementPolicy>> policies;
  if (req.policy == "all")
    for (const auto& n : schedule::policy_names()) policies.push_back(schedule::make_policy(n));
  else
    policies.push_back(schedule::make_policy(req.policy));
  if (req.seed < 0) throw InputError("--seed", "must be 0 or more");
  if (req.trace != "generated")
    for (const char* opt : {"--seed", "--load"})
      if (req.given(opt))
        throw InputError(opt, "applies to the generated job mix only (--trace generated); a trace file's jobs are "
                              "replayed as they are");
  if (req.given("--timeline") && !output.json())
    throw InputError("--timeline", "applies with --json only (the utilisation timeline is a field of the document, "
                                   "drawn by `gpuplan report schedule`)");
  const schedule::Cluster cluster(schedule::read_cluster_file(req.cluster_path, catalog_resolver(catalog)));
  std::vector<schedule::Job> jobs;
  if (req.trace == "generated") {
    schedule::MixOptions m;
    m.seed = static_cast<std::uint64_t>(req.seed);
    m.jobs = req.jobs_limit > 0 ? req.jobs_limit : 2000;
    m.cluster_gpus = cluster.total_gpus();
    m.offered_load = req.load;
    jobs = schedule::generate_llm_mix(m);
  } else {
    jobs = schedule::read_trace_file(req.trace);
    if (req.jobs_limit > 0 && static_cast<size_t>(req.jobs_limit) < jobs.size()) jobs.resize(req.jobs_limit);
  }
  if (!req.write_trace.empty()) {
    check_output_file(req.write_trace, "--write-trace", {req.cluster_path, req.trace}, output.notes);
    std::ofstream f(req.write_trace);
    if (!f) throw InputError("--write-trace", "cannot write '" + req.write_trace + "'");
    f << schedule::write_trace_csv(jobs);
  }
  schedule::SimOptions opt;
  opt.backfill = req.backfill;
  opt.preempt = req.preempt;
  if (req.slowdown_pct) opt.slowdown = schedule::fixed_slowdown(*req.slowdown_pct / 100.0);
  double effective_pct = req.slowdown_pct.value_or(32.0);
  if (req.slowdown_model.empty() != req.slowdown_system.empty())
    throw InputError(req.slowdown_model.empty() ? "--slowdown-model" : "--slowdown-system",
                     "--slowdown-model and --slowdown-system go together");
  if (!req.slowdown_model.empty() && req.slowdown_pct)
    throw InputError("--cross-domain-slowdown", "give either a fixed slowdown or --slowdown-model, not both");
  if (req.slowdown_pct && (req.given("--fabric-oversubscription") || req.given("--fabric-topology")))
    throw InputError("--cross-domain-slowdown", "a fixed slowdown does not see the fabric: drop --fabric-* or use "
                                                "the training model's slowdown");
  if (req.slowdown_model.empty() && !req.slowdown_pct) {
    // Default: the training model, with Llama 3.1 8B on the cluster's first catalog system.
    for (const auto& g : cluster.spec().groups)
      if (catalog.find_system(g.system)) {
        req.slowdown_model = "llama3.1-8b";
        req.slowdown_system = g.system;
        break;
      }
  }
  if (!req.slowdown_model.empty()) {
    if (!catalog.find_system(req.slowdown_system) && !catalog.find_accelerator(req.slowdown_system))
      catalog.system(req.slowdown_system, "--slowdown-system");  // unknown: the systems there are, named so
    Hardware hw = resolve_hardware(catalog, req.slowdown_system);
    apply_fabric_options(catalog, hw, 0, req.fabric_opts);
    const ModelArch ref = resolve_model(req.slowdown_model, "--slowdown-model");
    opt.slowdown = schedule::training_slowdown(hw, ref);
    effective_pct = 100.0 * (schedule::training_slowdown_factor(hw, ref, 8) - 1.0);  // shown for a TP=8 group
  }
  const bool tty = output.progress && output.notes;
  std::vector<schedule::SimResult> results;
  for (const auto& p : policies) {
    if (tty)
      opt.progress = [&, name = std::string(p->name())](double f) {
        *output.notes << fmt::format("\r{:<14} {:5.1f}%", name, 100.0 * f) << std::flush;
      };
    results.push_back(schedule::simulate(cluster, jobs, *p, opt));
    if (tty) *output.notes << "\r\033[K" << std::flush;
  }
  const int skipped = results.front().metrics.skipped;
  if (output.json()) {
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& g : cluster.spec().groups)
      groups.push_back({{"system", g.system}, {"count", g.count}, {"gpus_per_node", g.gpus_per_node},
                        {"nodes_per_unit", g.nodes_per_unit}, {"nvlink_domain_gpus", g.domain_gpus}});
    nlohmann::json res = nlohmann::json::array();
    for (const auto& r : results) {
      res.push_back(metrics_json(r));
      if (req.timeline_bins > 0) {
        const auto t = schedule::utilisation_timeline(r.records, cluster.total_gpus(), req.timeline_bins);
        res.back()["timeline"] = {{"bin_s", t.bin_s}, {"t_s", t.t_s}, {"utilisation", t.utilisation}};
      }
    }
    output.emit("schedule", {{"cluster", {{"name", cluster.spec().name}, {"gpus", cluster.total_gpus()},
                                         {"nodes", cluster.nodes().size()}, {"nvlink_domains", cluster.domains().size()},
                                         {"systems", groups}}},
                            {"trace", {{"source", req.trace}, {"jobs", jobs.size()}, {"skipped_larger_than_cluster", skipped},
                                       {"seed", req.trace == "generated" ? nlohmann::json(req.seed) : nlohmann::json()}}},
                            {"backfill", req.backfill},
                            {"preempt", req.preempt},
                            {"cross_domain_slowdown_pct", effective_pct},
                            {"results", res}});
    return kExitOk;
  }
  output.os() << fmt::format("Cluster '{}': {} GPUs, {} nodes, {} NVLink domains\n", cluster.spec().name,
                           cluster.total_gpus(), cluster.nodes().size(), cluster.domains().size());
  output.os() << fmt::format("Trace {}: {} jobs{}\n", req.trace, jobs.size(),
                           req.trace == "generated" ? fmt::format(" (seed {}, load {})", req.seed, req.load) : "");
  if (skipped > 0)
    output.os() << fmt::format("Skipped {} jobs larger than the cluster ({} GPUs); they are not in the metrics.\n",
                             skipped, cluster.total_gpus());
  if (req.slowdown_model.empty())
    output.os() << fmt::format("A job with a group split across NVLink domains runs {:.0f}% slower.\n\n", effective_pct);
  else
    output.os() << fmt::format("A job with a group split across NVLink domains runs slower by what the training model "
                             "says ({} on {}): {:.0f}% for a TP=8 group; other group sizes differ.\n\n",
                             req.slowdown_model, req.slowdown_system, effective_pct);
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
  if (req.preempt)
    rows.push_back({"pre-emptions", [](const auto& r) { return std::to_string(r.metrics.preemptions); }});
  size_t width = 12;
  for (const auto& r : results) width = std::max(width, r.policy.size());
  std::string line = fmt::format("{:<28}", "metric");
  for (const auto& r : results) line += fmt::format("  {:>{}}", r.policy, width);
  output.os() << line << "\n";
  for (const auto& [label, cell] : rows) {
    line = fmt::format("{:<28}", label);
    for (const auto& r : results) line += fmt::format("  {:>{}}", cell(r), width);
    output.os() << line << "\n";
  }
  return kExitOk;
}


}  // namespace gpuplan::api
