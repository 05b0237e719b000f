#include <fmt/format.h>

#include "report/kinds.h"

namespace gpuplan::report {

Page schedule_report(const Source& schedule) {
  const nlohmann::json& d = schedule.doc;
  const nlohmann::json cluster = d.value("cluster", nlohmann::json::object());
  const nlohmann::json trace = d.value("trace", nlohmann::json::object());
  const auto& results = d.value("results", nlohmann::json::array());
  Page page;
  page.title = fmt::format("Scheduling report: {} ({} GPUs)", cluster.value("name", std::string()),
                           cluster.value("gpus", 0));
  page.summary = fmt::format("Trace {} ({} jobs) replayed on {} nodes in {} NVLink domains under {} placement "
                             "{}{}{}; a job whose group is split across NVLink domains runs {:.1f}% slower.",
                             trace.value("source", std::string()), trace.value("jobs", 0), cluster.value("nodes", 0),
                             cluster.value("nvlink_domains", 0), results.size(),
                             results.size() == 1 ? "policy" : "policies", d.value("backfill", false) ? ", EASY backfill" : "",
                             d.value("preempt", false) ? ", pre-emption" : "", d.value("cross_domain_slowdown_pct", 0.0));
  page.sources = {schedule};

  Section us{"utilisation", "Utilisation over time", {}};
  Chart uc;
  uc.id = "utilisation";
  uc.title = "GPU utilisation over time, per policy";
  uc.x_label = "hours since the first submission";
  uc.y_label = "GPUs busy (%)";
  uc.x_scale = 1.0 / 3600;
  uc.y_scale = 100;
  uc.y_max = 100;  // a share of the cluster's GPUs: never above 100%
  bool dashed = false;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string b = fmt::format("/results/{}/timeline", i);
    Series s{results[i].value("policy", std::string()), {}, {}, dashed, false};
    dashed = !dashed;
    const auto n = results[i].contains("timeline") ? results[i]["timeline"].value("t_s", nlohmann::json::array()).size() : 0;
    for (std::size_t k = 0; k < n; ++k) {
      s.x.push_back(ref(schedule, fmt::format("{}/t_s/{}", b, k)));
      s.y.push_back(ref(schedule, fmt::format("{}/utilisation/{}", b, k)));
    }
    uc.series.push_back(std::move(s));
  }
  uc.caption = "Share of the cluster's GPUs running jobs in each interval from the first submission to the last "
               "completion, one line per policy (alternating solid and dashed). The mean of each line is the "
               "policy's utilisation in the table below; a policy that packs better finishes the trace sooner.";
  us.blocks.push_back(uc);
  page.sections.push_back(std::move(us));

  Section qs{"queueing", "Queueing delay per policy", {}};
  Chart qc;
  qc.id = "queueing-delay";
  qc.title = "Queueing delay per policy";
  qc.type = ChartType::bar;
  qc.x_label = "policy";
  qc.y_label = "hours";
  qc.y_scale = 1.0 / 3600;
  Series avg{"average queueing delay", {}, {}, false, false}, p99{"p99 queueing delay", {}, {}, false, false};
  for (std::size_t i = 0; i < results.size(); ++i) {
    qc.categories.push_back(results[i].value("policy", std::string()));
    avg.y.push_back(ref(schedule, fmt::format("/results/{}/avg_queueing_delay_s", i)));
    p99.y.push_back(ref(schedule, fmt::format("/results/{}/p99_queueing_delay_s", i)));
  }
  qc.series = {avg, p99};
  qc.caption = "Time from submission to first start, averaged over the jobs and at the 99th percentile, for each "
               "policy side by side. Lower is better.";
  qs.blocks.push_back(qc);
  page.sections.push_back(std::move(qs));

  Section ms{"metrics", "All metrics", {}};
  Table t{"Metrics per policy", {"policy"}, {}};
  struct M {
    const char* key;
    const char* label;
    const char* format;
    double scale;
    const char* suffix;
  };
  constexpr M kMetrics[] = {
      {"jobs", "jobs completed", "{:.0f}", 1, ""},
      {"utilisation", "GPU utilisation", "{:.1f}", 100, "%"},
      {"avg_jct_s", "avg JCT", "{:.1f}", 1.0 / 3600, " h"},
      {"p99_jct_s", "p99 JCT", "{:.1f}", 1.0 / 3600, " h"},
      {"avg_queueing_delay_s", "avg queueing delay", "{:.1f}", 1.0 / 3600, " h"},
      {"p99_queueing_delay_s", "p99 queueing delay", "{:.1f}", 1.0 / 3600, " h"},
      {"makespan_s", "makespan", "{:.1f}", 1.0 / 3600, " h"},
      {"fragmentation", "fragmentation", "{:.2f}", 100, "%"},
      {"one_domain_share", "multi-GPU jobs in one NVLink domain", "{:.1f}", 100, "%"},
      {"split_jobs", "jobs slowed (split groups)", "{:.0f}", 1, ""},
      {"gpu_hours_lost_to_cross_domain", "GPU-hours lost to cross-domain", "{:.0f}", 1, ""},
      {"preemptions", "pre-emptions", "{:.0f}", 1, ""},
  };
  for (const auto& r : results) t.columns.push_back(r.value("policy", std::string()));
  for (const M& m : kMetrics) {
    std::vector<Cell> row{Cell{m.label, {}, 1}};
    for (std::size_t i = 0; i < results.size(); ++i)
      row.push_back(num(ref(schedule, fmt::format("/results/{}/{}", i, m.key)), m.format, m.scale, m.suffix));
    t.rows.push_back(std::move(row));
  }
  ms.blocks.push_back(t);
  page.sections.push_back(std::move(ms));
  return page;
}

}  // namespace gpuplan::report
