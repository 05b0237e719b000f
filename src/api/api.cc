// run(): the table of commands the API answers, each a request struct parsed by the command's own
// option definitions and evaluated into its document.
#include "api/api.h"

#include <CLI/CLI.hpp>

#include <functional>

#include "api/compare.h"
#include "api/cost.h"
#include "api/recommend.h"
#include "api/schedule.h"
#include "api/validate.h"
#include "api/goodput.h"
#include "api/infer.h"
#include "api/memory.h"
#include "api/scale.h"
#include "api/search.h"
#include "api/train.h"
#include "api/options.h"
#include "api/output.h"
#include "core/error.h"
#include "core/suggest.h"

namespace gpuplan::api {

namespace {

// Parses `options` into a fresh request with the command's definitions, then evaluates it.
template <typename Request, typename Eval>
nlohmann::json run_with(const char* name, void (*add)(CLI::App&, Request&), const nlohmann::json& options,
                        Eval&& eval) {
  Request req;
  CLI::App app{"", std::string("gpuplan ") + name};
  add(app, req);
  check_numbers_finite(app);
  parse_options(app, options, req);
  Output out;
  eval(std::move(req), out);
  return std::move(out.doc);
}

using Runner = nlohmann::json (*)(const Session&, const nlohmann::json&);

struct Entry {
  CommandInfo info;
  Runner run;
};

const std::vector<Entry>& table() {
// A command whose evaluation reads the session's catalog.
#define GPUPLAN_API_WITH_CATALOG(NAME, REQUEST, HELP)                                                     \
  Entry {                                                                                                 \
    {#NAME, HELP}, [](const Session& s, const nlohmann::json& o) {                                        \
      return run_with(#NAME, static_cast<void (*)(CLI::App&, REQUEST&)>(add_##NAME##_options), o,                                                  \
                      [&](REQUEST req, Output& out) { return NAME(s.catalog(), std::move(req), out); }); \
    }                                                                                                     \
  }
// A command that needs no catalog.
#define GPUPLAN_API_PLAIN(NAME, REQUEST, HELP)                                                            \
  Entry {                                                                                                 \
    {#NAME, HELP}, [](const Session&, const nlohmann::json& o) {                                          \
      return run_with(#NAME, static_cast<void (*)(CLI::App&, REQUEST&)>(add_##NAME##_options), o,                                                  \
                      [&](REQUEST req, Output& out) { return NAME(std::move(req), out); });               \
    }                                                                                                     \
  }

  static const std::vector<Entry> entries = {
      GPUPLAN_API_WITH_CATALOG(compare, CompareRequest,
                               "Two systems side by side under each yardstick (per GPU, system, $ and watt); --claim "
                               "replays vendor claims"),
      GPUPLAN_API_WITH_CATALOG(recommend, RecommendRequest,
                               "Rank the catalog for a workload: fit, GPUs, time, cost, energy and the reasons"),
      GPUPLAN_API_WITH_CATALOG(cost, CostRequest,
                               "TCO per GPU-hour by part; $ per million tokens, joules per token, cost of a whole run"),
      GPUPLAN_API_WITH_CATALOG(memory, MemoryRequest,
                               "Per-GPU memory for training under a plan, or for inference at a concurrency"),
      GPUPLAN_API_WITH_CATALOG(train, TrainRequest,
                               "Predict one training step: time, tokens/s, MFU and where the time goes"),
      GPUPLAN_API_WITH_CATALOG(infer, InferRequest,
                               "Predict serving: tokens/s per GPU and per user, TTFT, TPOT; --sweep for the Pareto "
                               "frontier"),
      GPUPLAN_API_WITH_CATALOG(search, SearchRequest,
                               "Search TP/PP/VP/CP/EP/DP, micro-batch, recompute and ZeRO for the fastest plan"),
      GPUPLAN_API_WITH_CATALOG(scale, ScaleRequest,
                               "Sweep the GPU count: weak and strong scaling of MFU and tokens/s"),
      GPUPLAN_API_WITH_CATALOG(validate, ValidateRequest,
                               "Score the models against published measurements (training.csv schema)"),
      GPUPLAN_API_WITH_CATALOG(schedule, ScheduleRequest,
                               "Replay a job trace on a cluster: FIFO, best-fit and NVLink-domain-aware placement side "
                               "by side"),
      GPUPLAN_API_WITH_CATALOG(goodput, GoodputRequest,
                               "Goodput under failures: blast radius, checkpoints, Young/Daly, time and cost with "
                               "spares"),
  };
  return entries;
}

}  // namespace

const std::vector<CommandInfo>& commands() {
  static const std::vector<CommandInfo> infos = [] {
    std::vector<CommandInfo> v;
    for (const auto& e : table()) v.push_back(e.info);
    return v;
  }();
  return infos;
}

nlohmann::json run(const Session& session, std::string_view command, const nlohmann::json& options) {
  for (const auto& e : table())
    if (e.info.name == command) return e.run(session, options);
  std::vector<std::string> names;
  for (const auto& e : table()) names.push_back(e.info.name);
  throw InputError("command", "unknown command '" + echo_name(command) + "'" + did_you_mean(command, names));
}

bool does_not_fit(const nlohmann::json& document) {
  if (!document.is_object()) return false;
  if (auto it = document.find("fits"); it != document.end() && it->is_boolean() && !it->get<bool>()) return true;
  if (auto it = document.find("systems"); it != document.end() && it->is_array())
    for (const auto& s : *it)
      if (s.is_object() && s.contains("fits") && s["fits"].is_boolean() && !s["fits"].get<bool>()) return true;
  return false;
}

std::string report_html(const Session&, std::string_view kind, const nlohmann::json&) {
  throw InputError("kind", "report '" + std::string(kind) + "' is not yet served by the API");
}

}  // namespace gpuplan::api
