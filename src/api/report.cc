// gpuplan report KIND ...: one self-contained HTML page of a command's results. The report runs the
// same commands a user would (through the API, on the same arguments), keeps their JSON
// documents as the page's sources and hands them to the kind's page builder (src/report/kinds.h); so
// every number on the page is the command's --json number, by construction, and the page lists the
// commands that reproduce it.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "api/dispatch.h"
#include "api/output.h"
#include "api/report.h"
#include "api/scale.h"
#include "core/error.h"
#include "core/suggest.h"
#include "report/chart_library.h"
#include "report/kinds.h"

namespace gpuplan::api {

namespace {

using report::Page;
using report::Source;
using Args = std::vector<std::string>;

// --name VALUE or --name=VALUE in args.
std::optional<std::string> option_value(const Args& args, const std::string& name) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == name && i + 1 < args.size()) return args[i + 1];
    if (args[i].rfind(name + "=", 0) == 0) return args[i].substr(name.size() + 1);
  }
  return std::nullopt;
}

bool has_flag(const Args& args, const std::string& name) {
  return std::any_of(args.begin(), args.end(), [&](const std::string& a) { return a == name || a.rfind(name + "=", 0) == 0; });
}

// args without the options in `with_value` (and their values) and the flags in `flags`.
Args without(const Args& args, const std::set<std::string>& with_value, const std::set<std::string>& flags = {}) {
  Args out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const std::string name = a.substr(0, a.find('='));
    if (with_value.count(name)) {
      if (a == name) ++i;  // the value follows
      continue;
    }
    if (flags.count(name)) continue;
    out.push_back(a);
  }
  return out;
}

// The --catalog and --calibration options of args, to pass on to every command of the report.
Args catalog_options(const Args& args) {
  Args out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    for (const std::string name : {"--catalog", "--calibration"}) {
      if (args[i] == name && i + 1 < args.size()) out.insert(out.end(), {args[i], args[i + 1]});
      else if (args[i].rfind(name + "=", 0) == 0) out.push_back(args[i]);
    }
  }
  return out;
}

Args concat(Args a, const Args& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Runs `gpuplan ARGS...` (args[0] is the command) through the API and returns its document as the
// page's source. A plan that does not fit ends the report (ReportDoesNotFit, the CLI's exit 3).
Source run_json(const Session& session, std::string id, std::string title, Args args) {
  if (std::find(args.begin(), args.end(), "--json") == args.end()) args.push_back("--json");
  const Args tokens = without(Args(args.begin() + 1, args.end()), {"--catalog", "--calibration"}, {"--json"});
  nlohmann::json doc = run_tokens(session, args[0], tokens);
  if (does_not_fit(doc))
    throw ReportDoesNotFit(doc.contains("status") ? doc["status"].value("message", std::string()) : std::string());
  return Source{std::move(id), std::move(title), std::move(args), std::move(doc)};
}


// A number as the JSON shows it: whole numbers without a decimal point, doubles round-trip exactly.
std::string number(const nlohmann::json& v) { return v.dump(); }

// `catalog show NAME` for the provenance section; an entry the catalog does not know is left out.
void add_catalog_source(const Session& session, std::vector<Source>& out, const Args& user_args,
                        const std::string& name) {
  if (name.empty()) return;
  for (const auto& s : out)
    if (s.id == "catalog-" + name) return;
  try {
    out.push_back(run_json(session, "catalog-" + name, "catalog entry " + name,
                           concat(concat({"catalog"}, catalog_options(user_args)), {"show", name})));
  } catch (const InputError&) {
  }
}

std::string quoted_command_line(const std::string& kind, const Args& args) {
  return report::command_line(concat({"report", kind}, args));
}

// ---- the kinds: which commands each runs, and its page builder ----

Page train_kind(const Session& session, const Args& args, const ReportOptions& o, std::vector<Source>& catalog) {
  const Source train = run_json(session, "train", "the training step under the given plan", concat({"train"}, args));
  const nlohmann::json& t = train.doc;
  const std::string model = option_value(args, "--model").value_or(t.value("model", std::string()));
  const std::string system = option_value(args, "--system").value_or(t.value("system", std::string()));
  const int gpus = t.value("num_gpus", 0);
  const long long batch = t.value("global_batch", 0LL);
  const Args job = concat({"--model", model, "--system", system}, catalog_options(args));
  const Args shape = {"--seq", number(t["seq_len"]), "--precision", t.value("precision", std::string())};
  const Source search =
      run_json(session, "search", fmt::format("the top {} plans a search finds for the same job", o.top),
               concat(concat(concat({"search"}, job), {"--gpus", std::to_string(gpus), "--global-batch", std::to_string(batch)}),
                      concat(shape, {"--top", std::to_string(o.top)})));
  std::string list = o.scale_gpus;
  if (list.empty()) {
    std::set<int> ns;
    for (double f : {0.25, 0.5, 1.0, 2.0, 4.0}) ns.insert(std::max(1, static_cast<int>(std::lround(gpus * f))));
    for (int n : ns) list += (list.empty() ? "" : ",") + std::to_string(n);
  }
  const double per_gpu = static_cast<double>(batch) / gpus;
  const Source scale =
      run_json(session, "scale", "weak scaling of the best plan over GPU counts, at the same sequences per GPU",
               concat(concat(concat({"scale"}, job), {"--gpus", list, "--mode", "weak", "--batch-per-gpu", number(per_gpu)}),
                      shape));
  add_catalog_source(session, catalog, args, system);
  add_catalog_source(session, catalog, args, t.value("accelerator", std::string()));
  return report::train_report(train, search, scale);
}

Page infer_kind(const Session& session, const Args& args, const ReportOptions&, std::vector<Source>& catalog) {
  const std::set<std::string> plan_options = {"--tp", "--ep", "--pp", "--concurrency"};
  std::optional<Source> point;
  Args sweep_args = concat({"infer"}, args);
  if (!has_flag(args, "--sweep")) {
    // --aggregated-only narrows the sweep below, and the point's search only where a target speed leaves it one.
    const bool target = has_flag(args, "--tpot-ms") || has_flag(args, "--tokens-per-user-per-s") ||
                        has_flag(args, "--tokens-per-user");
    point = run_json(session, "infer", "the configuration asked for",
                     concat({"infer"}, target ? args : without(args, {}, {"--aggregated-only"})));
    // The sweep explores the deployments itself: without the point's plan or disaggregated pools.
    std::set<std::string> point_options = plan_options;
    point_options.insert({"--prefill-gpus", "--prefill-tp", "--prefill-ep", "--decode-gpus", "--decode-tp", "--decode-ep",
                          "--decode-max-batch", "--prefill-max-batch", "--prefill-max-tokens"});
    sweep_args = concat(concat({"infer"}, without(args, point_options,
                                                  {"--attention-dp", "--disagg", "--prefill-attn-dp", "--decode-attn-dp"})),
                        {"--sweep"});
  }
  const Source sweep = run_json(session, "sweep", "the Pareto frontier of the sweep", sweep_args);

  // The KV-cache ladder: the configuration asked for, or the frontier's highest throughput per GPU
  // (as the frontier has it: its MTP drafts, two-batch overlap, and for a disaggregated point its
  // prefill and decode pools).
  nlohmann::json parallel;
  int gpus = 0;
  long long max_concurrency = 0;
  const nlohmann::json* best = nullptr;
  const nlohmann::json frontier = sweep.doc.value("frontier", nlohmann::json::array());
  if (point) {
    parallel = point->doc.value("mode", std::string()) == "disaggregated" ? point->doc["decode_parallel"]
                                                                          : point->doc["parallel"];
    gpus = point->doc.value("gpus", 0);
    max_concurrency = point->doc.value("max_concurrency", 0LL);
  } else {
    for (const auto& p : frontier)
      if (!best || p.value("tokens_per_s_per_gpu", 0.0) > best->value("tokens_per_s_per_gpu", 0.0)) best = &p;
    if (best) {
      parallel = (*best)["parallel"];
      gpus = sweep.doc.value("gpus", 0);
      max_concurrency = best->value("max_concurrency", 0LL);
    }
  }
  std::vector<Source> ladder;
  if (max_concurrency > 0) {
    const Args base = without(args, {"--tp", "--ep", "--pp", "--concurrency", "--tpot-ms", "--tokens-per-user-per-s",
                                     "--ttft-ms", "--gpus", "--max-pp", "--mtp"},
                              {"--sweep", "--attention-dp", "--two-batch-overlap", "--aggregated-only"});
    Args config;
    const bool user_disagg = point && point->doc.value("mode", std::string()) == "disaggregated";
    if (user_disagg) {
      // The user's disaggregated deployment: its --disagg/--prefill-*/--decode-* options stay in `base`.
    } else if (best && best->value("disaggregated", false)) {
      const nlohmann::json& pre = (*best)["prefill_parallel"];
      config = {"--disagg", "--prefill-gpus", number(best->value("prefill_gpus", 0)), "--prefill-tp",
                number(pre.value("tp", 1)), "--prefill-ep", number(pre.value("ep", 1)), "--decode-gpus",
                number(best->value("decode_gpus", 0)), "--decode-tp", number(parallel.value("tp", 1)), "--decode-ep",
                number(parallel.value("ep", 1))};
      if (pre.value("attention_dp", false)) config.push_back("--prefill-attn-dp");
      if (parallel.value("attention_dp", false)) config.push_back("--decode-attn-dp");
    } else {
      config = {"--tp", number(parallel.value("tp", 1)), "--ep", number(parallel.value("ep", 1)), "--pp",
                number(parallel.value("pp", 1)), "--gpus", std::to_string(gpus)};
      if (parallel.value("attention_dp", false)) config.push_back("--attention-dp");
    }
    if (best) {
      // `infer --two-batch-overlap` sets it on both pools of a disaggregated deployment; the sweep's
      // prefill workers run without it (its decode pool's own overlap follows from its parallel).
      const nlohmann::json& overlap_of =
          best->value("disaggregated", false) ? (*best)["prefill_parallel"] : parallel;
      if (overlap_of.value("two_batch_overlap", false)) config.push_back("--two-batch-overlap");
      if (const int k = best->value("mtp_draft_tokens", 0); k > 0) config.insert(config.end(), {"--mtp", number(k)});
    } else {
      // The configuration asked for keeps the user's own MTP and overlap options.
      if (const auto v = option_value(args, "--mtp")) config.insert(config.end(), {"--mtp", *v});
      if (has_flag(args, "--two-batch-overlap")) config.push_back("--two-batch-overlap");
    }
    std::set<long long> cs;
    for (int i = 1; i <= 8; ++i) cs.insert(std::max(1LL, std::llround(static_cast<double>(max_concurrency) * i / 8.0)));
    cs.insert(std::max(1LL, std::llround(static_cast<double>(max_concurrency) / 16.0)));
    for (long long c : cs) {
      Args a = concat(concat(concat({"infer"}, base), config), {"--concurrency", std::to_string(c)});
      ladder.push_back(run_json(session, fmt::format("kv-{}", c), fmt::format("one configuration at concurrency {}", c), a));
    }
  }
  add_catalog_source(session, catalog, args, sweep.doc.value("system", std::string()));
  if (!ladder.empty()) add_catalog_source(session, catalog, args, ladder.front().doc.value("accelerator", std::string()));
  return report::infer_report(sweep, point, ladder);
}

Page schedule_kind(const Session& session, const Args& args, const ReportOptions&, std::vector<Source>& catalog) {
  Args a = concat({"schedule"}, args);
  if (!option_value(args, "--timeline")) a.insert(a.end(), {"--timeline", "48"});
  const Source s = run_json(session, "schedule", "the replay under each policy", a);
  for (const auto& g : s.doc["cluster"].value("systems", nlohmann::json::array()))
    add_catalog_source(session, catalog, args, g.value("system", std::string()));
  return report::schedule_report(s);
}

Page site_kind(const Session& session, const Args& args, const ReportOptions&, std::vector<Source>& catalog) {
  if (!option_value(args, "--cluster"))
    throw InputError("--cluster", "a site report shows a cluster on a site: give --cluster FILE (and --site FILE)");
  const Source s = run_json(session, "site", "the cluster on the site and what has to change", concat({"site"}, args));
  for (const auto& g : s.doc["cluster"].value("groups", nlohmann::json::array()))
    add_catalog_source(session, catalog, args, g.value("system", std::string()));
  return report::site_report(s);
}

Page compare_kind(const Session& session, const Args& args, const ReportOptions&, std::vector<Source>& catalog) {
  if (has_flag(args, "--claim"))
    throw InputError("--claim", "a compare report shows the yardsticks of two systems; run `gpuplan compare --claim` "
                                "for the claims");
  const Source c = run_json(session, "compare", "the two systems under each yardstick", concat({"compare"}, args));
  for (const char* side : {"a", "b"}) {
    add_catalog_source(session, catalog, args, c.doc[side].value("system", std::string()));
    add_catalog_source(session, catalog, args, c.doc[side].value("accelerator", std::string()));
  }
  return report::compare_report(c);
}

struct Kind {
  const char* name;
  const char* help;
  Page (*build)(const Session& session, const Args& args, const ReportOptions& o, std::vector<Source>& catalog);
};

Page size_kind(const Session& session, const Args& args, const ReportOptions&, std::vector<Source>& catalog) {
  // The page shows the tornado and the crossover: size runs with --sensitivity.
  const Args sized = has_flag(args, "--sensitivity") ? args : concat(args, {"--sensitivity"});
  const Source s = run_json(session, "size", "the demand sized on every system", concat({"size"}, sized));
  for (const auto& o : s.doc.value("options", nlohmann::json::array()))
    if (o.contains("units")) add_catalog_source(session, catalog, args, o.value("system", std::string()));
  return report::size_report(s);
}

// To add a kind: a page builder in src/report/ (a function of the command's --json documents) and one
// row here whose function runs the command(s) with run_json. See docs/report.md.
const Kind kKinds[] = {
    {"compare", "two systems under each yardstick, serving curves with the ratio along them, training, cost "
                "(options of `gpuplan compare`)", compare_kind},
    {"train", "the given plan against a search's top plans; step time, memory, scaling (options of `gpuplan train`)", train_kind},
    {"infer", "Pareto frontier with TTFT/TPOT limits, KV cache against concurrency (options of `gpuplan infer`)", infer_kind},
    {"schedule", "utilisation over time and queueing delay per policy (options of `gpuplan schedule`)",
     schedule_kind},
    {"site", "power per unit, positions by cooling kind, what has to change (options of `gpuplan site`)",
     site_kind},
    {"size", "$ per million tokens and the odds per system, units, money and power (options of `gpuplan size`)",
     size_kind},
};

const Kind& find_kind(const std::string& name) {
  for (const auto& k : kKinds)
    if (name == k.name) return k;
  std::vector<std::string> names;
  for (const auto& k : kKinds) names.emplace_back(k.name);
  throw InputError("KIND", "unknown report kind '" + name + "'" + did_you_mean(name, names) +
                               "; allowed: compare, train, infer, schedule, site, size");
}

}  // namespace

const std::vector<ReportKind>& report_kinds() {
  static const std::vector<ReportKind> kinds = [] {
    std::vector<ReportKind> v;
    for (const auto& k : kKinds) v.push_back({k.name, k.help});
    return v;
  }();
  return kinds;
}

void check_report_kind(const std::string& kind) { find_kind(kind); }

ReportOptions take_report_options(const std::string& kind_name, const Args& rest, Args& args, bool out_required) {
  find_kind(kind_name);
  ReportOptions o;
  if (auto v = option_value(rest, "--out")) o.out = *v;
  if (o.out.empty() && out_required) throw InputError("--out", "is required: the HTML file to write, e.g. --out report.html");
  if (auto v = option_value(rest, "--top")) {
    if (kind_name != "train") throw InputError("--top", "is an option of `report train` only");
    std::size_t used = 0;
    try {
      o.top = std::stoi(*v, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != v->size() || o.top < 1 || o.top > 20)
      throw InputError("--top", fmt::format("must be a whole number from 1 to 20, got '{}'", *v));
  }
  if (auto v = option_value(rest, "--scale-gpus")) {
    if (kind_name != "train") throw InputError("--scale-gpus", "is an option of `report train` only");
    if (v->empty()) throw InputError("--scale-gpus", "must not be empty (leave the option out for its default)");
    parse_gpu_counts(*v, "--scale-gpus");  // as scale reads --gpus, named as given here
    o.scale_gpus = *v;
  }
  args = without(rest, {"--out", "--top", "--scale-gpus"});
  if (has_flag(args, "--json"))
    throw InputError("--json", "a report writes HTML (--out); the JSON of each command is embedded in it");
  return o;
}

Report build_report(const Session& session, const std::string& kind_name, const Args& args, const ReportOptions& o,
                    const Args& rest, const std::string& version) {
  const Kind& kind = find_kind(kind_name);
  std::vector<Source> catalog;
  Page page = kind.build(session, args, o, catalog);
  for (auto& c : catalog) {
    for (auto& f : report::catalog_figures(c)) page.provenance.figures.push_back(std::move(f));
    page.sources.push_back(std::move(c));
  }
  page.provenance.command_line = quoted_command_line(kind_name, rest);
  page.provenance.version = version;
  Report r;
  r.html = report::render_html(page, report::chart_library_js(), report::chart_library_version());
  for (const auto& s : page.sections)
    for (const auto& b : s.blocks) r.charts += std::holds_alternative<report::Chart>(b);
  r.sources = page.sources.size();
  return r;
}

std::string report_html(const Session& session, std::string_view kind, const nlohmann::json& options) {
  const std::string kind_name(kind);
  find_kind(kind_name);
  if (!options.is_object() && !options.is_null())
    throw InputError("options", "must be an object of option names and values, got " + std::string(options.type_name()));
  // The report's own options, then the command's (as tokens, through the command's definitions).
  nlohmann::json command_options = options.is_null() ? nlohmann::json::object() : options;
  Args own;
  for (const char* name : {"out", "top", "scale-gpus", "scale_gpus"}) {
    for (const std::string& key : {std::string(name), "--" + std::string(name)}) {
      auto it = command_options.find(key);
      if (it == command_options.end()) continue;
      const std::string flag = std::string("--") + (std::string(name) == "scale_gpus" ? "scale-gpus" : name);
      own.push_back(flag + "=" + (it->is_string() ? it->get<std::string>() : it->dump()));
      command_options.erase(it);
    }
  }
  const bool write = std::any_of(own.begin(), own.end(), [](const std::string& a) { return a.rfind("--out=", 0) == 0; });
  Args rest = command_tokens(kind_name, command_options);
  rest.insert(rest.end(), own.begin(), own.end());
  Args args;
  const ReportOptions o = take_report_options(kind_name, rest, args, false);  // no --out: the HTML is the answer
  const Report r = build_report(session, kind_name, args, o, rest, GPUPLAN_VERSION);
  if (write) {
    check_output_file_of_args(o.out, "--out", rest, nullptr);
    std::ofstream f(o.out, std::ios::binary);
    if (!f || !(f << r.html) || !f.flush()) throw InputError("--out", "cannot write '" + o.out + "'");
  }
  return r.html;
}

}  // namespace gpuplan::api
