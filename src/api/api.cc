// run(): the table of commands the API answers, each a request struct parsed by the command's own
// option definitions and evaluated into its document.
#include "api/api.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>

#include "api/catalog.h"
#include "api/command_line.h"
#include "api/dispatch.h"
#include "api/compare.h"
#include "api/cost.h"
#include "api/recommend.h"
#include "api/schedule.h"
#include "api/validate.h"
#include "api/goodput.h"
#include "api/fabric.h"
#include "api/infer.h"
#include "api/infer_open_loop.h"
#include "api/site.h"
#include "api/size.h"
#include "api/memory.h"
#include "api/model.h"
#include "api/recipe.h"
#include "api/scale.h"
#include "api/search.h"
#include "api/train.h"
#include "api/options.h"
#include "api/option_names.h"
#include "api/output.h"
#include "core/error.h"
#include "core/suggest.h"

namespace gpuplan::api {

namespace {

// A command's option definitions bound to a request, built once per thread and command: building
// the CLI11 app costs more than the evaluation of an inference point, so each call only resets the
// request to its defaults and clears the parse.
template <typename Request>
struct Parser {
  const Request defaults{};
  Request req;
  CLI::App app;
  OptionNames names;  // the option keys this thread's calls gave, looked up once
  Parser(const char* name, void (*add)(CLI::App&, Request&)) : app("", std::string("gpuplan ") + name) {
    add(app, req);
    check_option_values(app);
  }
};

// A call's options: run()'s JSON object, a command line's tokens (report), or neither: the tokens
// the JSON would give, without evaluating (report_html).
struct Input {
  const nlohmann::json* options = nullptr;
  const std::vector<std::string>* tokens = nullptr;
  std::vector<std::string>* tokens_out = nullptr;
};

// Parses the input into a fresh request with the command's definitions, then evaluates it.
template <typename Request, typename Eval>
nlohmann::json run_with(const char* name, void (*add)(CLI::App&, Request&), const Input& in, Eval&& eval) {
  thread_local std::unique_ptr<Parser<Request>> parser;
  if (!parser) parser = std::make_unique<Parser<Request>>(name, add);
  if (in.tokens_out) {
    *in.tokens_out = option_tokens(parser->app, *in.options, &parser->names);
    return nullptr;
  }
  parser->req = parser->defaults;  // the bindings point into req: assign, never replace the object
  parser->app.clear();
  if (in.tokens)
    parse_tokens(parser->app, *in.tokens, parser->req);
  else
    parse_options(parser->app, *in.options, parser->req, &parser->names);
  Output out;
  eval(std::move(parser->req), out);  // moved, not copied: the next call assigns the defaults again
  return std::move(out.doc);
}

using Runner = nlohmann::json (*)(const Session*, const Input&);  // session null: tokens_out only
using Binder = std::unique_ptr<BoundCommand> (*)(CLI::App&);

// A command's options bound to a request that lives as long as the binding (bind_command()).
template <typename Request, typename Eval>
class Bound final : public BoundCommand {
 public:
  Bound(CLI::App& app, void (*add)(CLI::App&, Request&), bool reads_catalog, Eval eval)
      : reads_catalog_(reads_catalog), eval_(eval) {
    add(app, req_);
  }
  RequestBase& request() override { return req_; }
  bool reads_catalog() const override { return reads_catalog_; }
  int evaluate(const Catalog* catalog, Output& out) override { return eval_(catalog, req_, out); }

 private:
  Request req_;
  bool reads_catalog_;
  Eval eval_;
};

template <typename Request, typename Eval>
std::unique_ptr<BoundCommand> bind_to(CLI::App& app, void (*add)(CLI::App&, Request&), bool reads_catalog, Eval eval) {
  return std::make_unique<Bound<Request, Eval>>(app, add, reads_catalog, eval);
}

struct Entry {
  CommandInfo info;
  Runner run;
  Binder bind;  // the CLI's: the same options over the face's own app
};

const std::vector<Entry>& table() {
// A command whose evaluation reads the session's catalog.
#define GPUPLAN_API_WITH_CATALOG(NAME, REQUEST, HELP)                                                     \
  Entry {                                                                                                 \
    {#NAME, HELP}, [](const Session* s, const Input& o) {                                        \
      return run_with(#NAME, static_cast<void (*)(CLI::App&, REQUEST&)>(add_##NAME##_options), o,                                                  \
                      [&](REQUEST req, Output& out) { return NAME(s->catalog(), std::move(req), out); }); \
    },                                                                                                    \
    [](CLI::App& app) {                                                                                   \
      return bind_to(app, static_cast<void (*)(CLI::App&, REQUEST&)>(add_##NAME##_options), true,            \
                  [](const Catalog* c, const REQUEST& req, Output& out) { return NAME(*c, req, out); });  \
    }                                                                                                     \
  }
// A command that needs no catalog.
#define GPUPLAN_API_PLAIN(NAME, REQUEST, HELP)                                                            \
  Entry {                                                                                                 \
    {#NAME, HELP}, [](const Session*, const Input& o) {                                          \
      return run_with(#NAME, static_cast<void (*)(CLI::App&, REQUEST&)>(add_##NAME##_options), o,                                                  \
                      [&](REQUEST req, Output& out) { return NAME(std::move(req), out); });               \
    },                                                                                                    \
    [](CLI::App& app) {                                                                                   \
      return bind_to(app, static_cast<void (*)(CLI::App&, REQUEST&)>(add_##NAME##_options), false,           \
                  [](const Catalog*, const REQUEST& req, Output& out) { return NAME(req, out); });        \
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
      GPUPLAN_API_WITH_CATALOG(catalog, CatalogRequest,
                               "List accelerators, systems and networks, or show one with the source of each figure"),
      GPUPLAN_API_PLAIN(model, ModelRequest, "List built-in models or show one (parameters, FLOPs, KV cache)"),
      GPUPLAN_API_PLAIN(recipe, RecipeRequest,
                        "List the built-in deployment recipes or show one (model, system, pools, engine settings, source)"),
      GPUPLAN_API_WITH_CATALOG(memory, MemoryRequest,
                               "Per-GPU memory for training under a plan, or for inference at a concurrency"),
      GPUPLAN_API_WITH_CATALOG(train, TrainRequest,
                               "Predict one training step: time, tokens/s, MFU and where the time goes"),
      // infer also takes the session's resolved hardware (a point costs microseconds, the lookups as much).
      Entry{{"infer", "Predict serving: tokens/s per GPU and per user, TTFT, TPOT; --sweep for the Pareto frontier; "
                      "--requests-per-s for a steady open-loop demand (p50/p99), --request-rate to replay a benchmark run"},
            [](const Session* s, const Input& o) {
              return run_with("infer",
                              static_cast<void (*)(CLI::App&, InferOpenLoopRequest&)>(add_infer_open_loop_options), o,
                              [&](InferOpenLoopRequest req, Output& out) {
                                return infer_open_loop(s->catalog(), std::move(req), out, s);
                              });
            },
            [](CLI::App& app) {
              return bind_to(app, static_cast<void (*)(CLI::App&, InferOpenLoopRequest&)>(add_infer_open_loop_options),
                             true, [](const Catalog* c, const InferOpenLoopRequest& req, Output& out) {
                               return infer_open_loop(*c, req, out);
                             });
            }},
      GPUPLAN_API_WITH_CATALOG(search, SearchRequest,
                               "Search TP/PP/VP/CP/EP/DP, micro-batch, recompute and ZeRO for the fastest plan"),
      GPUPLAN_API_WITH_CATALOG(scale, ScaleRequest,
                               "Sweep the GPU count: weak and strong scaling of MFU and tokens/s"),
      GPUPLAN_API_WITH_CATALOG(validate, ValidateRequest,
                               "Score the models against published measurements (training.csv schema)"),
      GPUPLAN_API_WITH_CATALOG(schedule, ScheduleRequest,
                               "Replay a job trace on a cluster: FIFO, best-fit and NVLink-domain-aware placement side "
                               "by side"),
      GPUPLAN_API_WITH_CATALOG(fabric, FabricRequest,
                               "Scale-out fabric: switches by tier, NICs, optics and cables, network power and capex, "
                               "per-GPU bandwidth"),
      GPUPLAN_API_WITH_CATALOG(site, SiteRequest,
                               "Site fit: rack and facility power, cooling and positions; what a power budget buys"),
      GPUPLAN_API_WITH_CATALOG(size, SizeRequest,
                               "Size a serving demand on every system: units, cost, power and the odds of meeting the "
                               "SLA (open-loop Poisson arrivals, Monte Carlo over the error bands)"),
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

namespace {

const Entry& entry(std::string_view command) {
  for (const auto& e : table())
    if (e.info.name == command) return e;
  std::vector<std::string> names;
  for (const auto& e : table()) names.push_back(e.info.name);
  throw InputError("command", "unknown command '" + echo_name(command) + "'" + did_you_mean(command, names));
}

}  // namespace

std::unique_ptr<BoundCommand> bind_command(std::string_view command, CLI::App& app) { return entry(command).bind(app); }

nlohmann::json run(const Session& session, std::string_view command, const nlohmann::json& options) {
  return entry(command).run(&session, Input{&options, nullptr, nullptr});
}

nlohmann::json run_tokens(const Session& session, std::string_view command, const std::vector<std::string>& tokens) {
  return entry(command).run(&session, Input{nullptr, &tokens, nullptr});
}

std::vector<std::string> command_tokens(std::string_view command, const nlohmann::json& options) {
  std::vector<std::string> tokens;
  entry(command).run(nullptr, Input{&options, nullptr, &tokens});  // not evaluated: no session needed
  return tokens;
}

bool does_not_fit(const nlohmann::json& document) {
  if (!document.is_object()) return false;
  // A plan or deployment the user asked about, or the one a command looked for, that does not fit is exit 3,
  // the document printed either way: train, goodput and memory (fits: false), infer at a target (met: false),
  // search with no plan that fits, scale with none at any GPU count. Other documents report fits: false as a
  // finding (recommend's unfitted rows, a scale point among others that fit).
  const auto schema = document.find("schema");
  if (schema == document.end() || !schema->is_string()) return false;
  const auto is_false = [&](const char* key) {
    const auto it = document.find(key);
    return it != document.end() && it->is_boolean() && !it->get<bool>();
  };
  if (*schema == "gpuplan.infer/v1") return is_false("met");
  if (*schema == "gpuplan.memory/v1") return is_false("fits");
  if (*schema == "gpuplan.search/v1") {
    const auto top = document.find("top");
    return top != document.end() && top->is_array() && top->empty();
  }
  if (*schema == "gpuplan.scale/v1") {
    const auto points = document.find("points");
    if (points == document.end() || !points->is_array() || points->empty()) return false;
    for (const auto& p : *points)
      if (!p.is_object() || !p.contains("found") || !p["found"].is_boolean() || p["found"].get<bool>()) return false;
    return true;
  }
  if (*schema != "gpuplan.train/v1" && *schema != "gpuplan.goodput/v1") return false;
  if (is_false("fits")) return true;
  if (auto it = document.find("systems"); it != document.end() && it->is_array())
    for (const auto& s : *it)
      if (s.is_object() && s.contains("fits") && s["fits"].is_boolean() && !s["fits"].get<bool>()) return true;
  return false;
}

}  // namespace gpuplan::api
