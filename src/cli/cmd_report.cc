// gpuplan report KIND ...: one self-contained HTML page of a command's results. The report runs the
// same sub-commands a user would (in-process, with --json, on the same arguments), keeps their JSON
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

#include "cli/commands.h"
#include "cli/common.h"
#include "core/error.h"
#include "core/suggest.h"
#include "report/chart_library.h"
#include "report/kinds.h"

namespace gpuplan::cli {

namespace report_detail {  // named, not anonymous: the CLI may be built as one unit

using report::Page;
using report::Source;
using Args = std::vector<std::string>;
using CommandFn = int (*)(int, char**);

// A sub-command failed; its message is already on stderr and `code` is its exit code.
struct CommandFailed {
  int code;
};

// Runs `fn` in-process as `gpuplan ARGS... --json` and returns its document. Its stdout and stderr are
// captured; on failure its stderr is passed on (unless quiet) and CommandFailed thrown.
Source run_json(CommandFn fn, std::string id, std::string title, Args args, bool quiet = false) {
  if (std::find(args.begin(), args.end(), "--json") == args.end()) args.push_back("--json");
  std::vector<std::string> storage = args;
  storage[0] = "gpuplan " + args[0];
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  std::ostringstream out, err;
  int rc = 0;
  {
    struct Redirect {
      std::ostream& stream;
      std::streambuf* old;
      Redirect(std::ostream& s, std::streambuf* to) : stream(s), old(s.rdbuf(to)) {}
      ~Redirect() { stream.rdbuf(old); }
    } o{std::cout, out.rdbuf()}, e{std::cerr, err.rdbuf()};
    // argv[0] is the sub-command's label, as main() passes it.
    rc = fn(static_cast<int>(argv.size()), argv.data());
  }
  if (rc != kExitOk) {
    if (!quiet) std::cerr << err.str();
    throw CommandFailed{rc};
  }
  return Source{std::move(id), std::move(title), std::move(args), nlohmann::json::parse(out.str())};
}

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

// A number as the JSON shows it: whole numbers without a decimal point, doubles round-trip exactly.
std::string number(const nlohmann::json& v) { return v.dump(); }

// `catalog show NAME` for the provenance section; an entry the catalog does not know is left out.
void add_catalog_source(std::vector<Source>& out, const Args& user_args, const std::string& name) {
  if (name.empty()) return;
  for (const auto& s : out)
    if (s.id == "catalog-" + name) return;
  try {
    out.push_back(run_json(cmd_catalog, "catalog-" + name, "catalog entry " + name,
                           concat(concat({"catalog"}, catalog_options(user_args)), {"show", name}), true));
  } catch (const CommandFailed&) {
  }
}

// Options of the report itself, taken out of the arguments before they go to the commands.
struct ReportOptions {
  std::string out;
  int top = 5;
  std::string scale_gpus;
};

std::string quoted_command_line(const std::string& kind, const Args& args) {
  return report::command_line(concat({"report", kind}, args));
}

// ---- the kinds: which commands each runs, and its page builder ----

Page train_kind(const Args& args, const ReportOptions& o, std::vector<Source>& catalog) {
  const Source train = run_json(cmd_train, "train", "the training step under the given plan", concat({"train"}, args));
  const nlohmann::json& t = train.doc;
  const std::string model = option_value(args, "--model").value_or(t.value("model", std::string()));
  const std::string system = option_value(args, "--system").value_or(t.value("system", std::string()));
  const int gpus = t.value("num_gpus", 0);
  const long long batch = t.value("global_batch", 0LL);
  const Args job = concat({"--model", model, "--system", system}, catalog_options(args));
  const Args shape = {"--seq", number(t["seq_len"]), "--precision", t.value("precision", std::string())};
  const Source search =
      run_json(cmd_search, "search", fmt::format("the top {} plans a search finds for the same job", o.top),
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
      run_json(cmd_scale, "scale", "weak scaling of the best plan over GPU counts, at the same sequences per GPU",
               concat(concat(concat({"scale"}, job), {"--gpus", list, "--mode", "weak", "--batch-per-gpu", number(per_gpu)}),
                      shape));
  add_catalog_source(catalog, args, system);
  add_catalog_source(catalog, args, t.value("accelerator", std::string()));
  return report::train_report(train, search, scale);
}

Page infer_kind(const Args& args, const ReportOptions&, std::vector<Source>& catalog) {
  const std::set<std::string> plan_options = {"--tp", "--ep", "--pp", "--concurrency"};
  std::optional<Source> point;
  Args sweep_args = concat({"infer"}, args);
  if (!has_flag(args, "--sweep")) {
    point = run_json(cmd_infer, "infer", "the configuration asked for", concat({"infer"}, args));
    sweep_args = concat(concat({"infer"}, without(args, plan_options, {"--attention-dp"})), {"--sweep"});
  }
  const Source sweep = run_json(cmd_infer, "sweep", "the Pareto frontier of the sweep", sweep_args);

  // The KV-cache ladder: the configuration asked for, or the frontier's highest throughput per GPU.
  nlohmann::json parallel;
  int gpus = 0;
  long long max_concurrency = 0;
  if (point) {
    parallel = point->doc["parallel"];
    gpus = point->doc.value("gpus", 0);
    max_concurrency = point->doc.value("max_concurrency", 0LL);
  } else {
    const nlohmann::json frontier = sweep.doc.value("frontier", nlohmann::json::array());
    const nlohmann::json* best = nullptr;
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
                                     "--ttft-ms", "--gpus", "--max-pp"},
                              {"--sweep", "--attention-dp"});
    std::set<long long> cs;
    for (int i = 1; i <= 8; ++i) cs.insert(std::max(1LL, std::llround(static_cast<double>(max_concurrency) * i / 8.0)));
    cs.insert(std::max(1LL, std::llround(static_cast<double>(max_concurrency) / 16.0)));
    for (long long c : cs) {
      Args a = concat(concat({"infer"}, base),
                      {"--tp", number(parallel.value("tp", 1)), "--ep", number(parallel.value("ep", 1)), "--pp",
                       number(parallel.value("pp", 1)), "--gpus", std::to_string(gpus), "--concurrency", std::to_string(c)});
      if (parallel.value("attention_dp", false)) a.push_back("--attention-dp");
      ladder.push_back(run_json(cmd_infer, fmt::format("kv-{}", c), fmt::format("one configuration at concurrency {}", c), a));
    }
  }
  add_catalog_source(catalog, args, sweep.doc.value("system", std::string()));
  if (!ladder.empty()) add_catalog_source(catalog, args, ladder.front().doc.value("accelerator", std::string()));
  return report::infer_report(sweep, point, ladder);
}

Page schedule_kind(const Args& args, const ReportOptions&, std::vector<Source>& catalog) {
  Args a = concat({"schedule"}, args);
  if (!option_value(args, "--timeline")) a.insert(a.end(), {"--timeline", "48"});
  const Source s = run_json(cmd_schedule, "schedule", "the replay under each policy", a);
  for (const auto& g : s.doc["cluster"].value("systems", nlohmann::json::array()))
    add_catalog_source(catalog, args, g.value("system", std::string()));
  return report::schedule_report(s);
}

Page site_kind(const Args& args, const ReportOptions&, std::vector<Source>& catalog) {
  if (!option_value(args, "--cluster"))
    throw InputError("--cluster", "a site report shows a cluster on a site: give --cluster FILE (and --site FILE)");
  const Source s = run_json(cmd_site, "site", "the cluster on the site and what has to change", concat({"site"}, args));
  for (const auto& g : s.doc["cluster"].value("groups", nlohmann::json::array()))
    add_catalog_source(catalog, args, g.value("system", std::string()));
  return report::site_report(s);
}

Page compare_kind(const Args& args, const ReportOptions&, std::vector<Source>& catalog) {
  if (has_flag(args, "--claim"))
    throw InputError("--claim", "a compare report shows the yardsticks of two systems; run `gpuplan compare --claim` "
                                "for the claims");
  const Source c = run_json(cmd_compare, "compare", "the two systems under each yardstick", concat({"compare"}, args));
  for (const char* side : {"a", "b"}) {
    add_catalog_source(catalog, args, c.doc[side].value("system", std::string()));
    add_catalog_source(catalog, args, c.doc[side].value("accelerator", std::string()));
  }
  return report::compare_report(c);
}

struct Kind {
  const char* name;
  const char* help;
  CommandFn command;  // whose options the kind takes (for --help)
  Page (*build)(const Args& args, const ReportOptions& o, std::vector<Source>& catalog);
};

// To add a kind: a page builder in src/report/ (a function of the command's --json documents) and one
// row here whose function runs the command(s) with run_json. See docs/report.md.
const Kind kKinds[] = {
    {"compare", "two systems under each yardstick, serving curves with the ratio along them, training, cost "
                "(options of `gpuplan compare`)",
     cmd_compare, compare_kind},
    {"train", "the given plan against a search's top plans; step time, memory, scaling (options of `gpuplan train`)",
     cmd_train, train_kind},
    {"infer", "Pareto frontier with TTFT/TPOT limits, KV cache against concurrency (options of `gpuplan infer`)",
     cmd_infer, infer_kind},
    {"schedule", "utilisation over time and queueing delay per policy (options of `gpuplan schedule`)", cmd_schedule,
     schedule_kind},
    {"site", "power per unit, positions by cooling kind, what has to change (options of `gpuplan site`)", cmd_site,
     site_kind},
};

void print_report_usage() {
  std::cout << "Write one self-contained HTML report (charts, tables, inputs and sources) that opens offline.\n\n"
               "Usage: gpuplan report KIND [options of that command] --out FILE.html\n\nKinds:\n";
  for (const auto& k : kKinds) std::cout << fmt::format("  {:<10} {}\n", k.name, k.help);
  std::cout << "\nReport options:\n"
               "  --out FILE          the HTML file to write (required)\n"
               "  --top N             train: how many of the search's best plans to show (default 5, 1 to 20)\n"
               "  --scale-gpus LIST   train: GPU counts of the scaling sweep (default: N/4,N/2,N,2N,4N)\n"
               "\nEvery number in the page equals that of the command's --json output; the page lists those commands.\n"
               "`gpuplan report KIND --help` shows that command's options.\n";
}

}  // namespace report_detail

int cmd_report(int argc, char** argv) {
  using namespace report_detail;
  Args all(argv + 1, argv + argc);
  if (all.empty() || all[0] == "--help" || all[0] == "-h") {
    print_report_usage();
    return all.empty() ? kExitBadInput : kExitOk;
  }
  return run_guarded([&]() -> int {
    const std::string kind_name = all[0];
    const Kind* kind = nullptr;
    for (const auto& k : kKinds)
      if (kind_name == k.name) kind = &k;
    if (!kind) {
      std::vector<std::string> names;
      for (const auto& k : kKinds) names.emplace_back(k.name);
      throw InputError("KIND", "unknown report kind '" + kind_name + "'" + did_you_mean(kind_name, names) +
                                   "; allowed: compare, train, infer, schedule, site");
    }
    Args rest(all.begin() + 1, all.end());
    if (has_flag(rest, "--help") || has_flag(rest, "-h")) {
      print_report_usage();
      std::cout << "\nOptions of `gpuplan " << kind->name << "`:\n";
      std::string label = std::string("gpuplan ") + kind->name, help = "--help";
      char* help_argv[] = {label.data(), help.data()};
      return kind->command(2, help_argv);
    }
    ReportOptions o;
    if (auto v = option_value(rest, "--out")) o.out = *v;
    if (o.out.empty()) throw InputError("--out", "is required: the HTML file to write, e.g. --out report.html");
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
      o.scale_gpus = *v;
    }
    const Args args = without(rest, {"--out", "--top", "--scale-gpus"});
    if (has_flag(args, "--json"))
      throw InputError("--json", "a report writes HTML (--out); the JSON of each command is embedded in it");

    std::vector<Source> catalog;
    Page page;
    try {
      page = kind->build(args, o, catalog);
    } catch (const CommandFailed& f) {
      return f.code;
    }
    for (auto& c : catalog) {
      for (auto& f : report::catalog_figures(c)) page.provenance.figures.push_back(std::move(f));
      page.sources.push_back(std::move(c));
    }
    page.provenance.command_line = quoted_command_line(kind_name, rest);
    page.provenance.version = GPUPLAN_VERSION;
    const std::string html = report::render_html(page, report::chart_library_js(), report::chart_library_version());
    std::ofstream f(o.out, std::ios::binary);
    if (!f || !(f << html) || !f.flush()) throw InputError("--out", "cannot write '" + o.out + "'");
    std::size_t charts = 0;
    for (const auto& s : page.sections)
      for (const auto& b : s.blocks) charts += std::holds_alternative<report::Chart>(b);
    std::cout << fmt::format("Wrote {} ({} charts, {} sources, {:.0f} KB); it opens offline in any browser.\n", o.out,
                             charts, page.sources.size(), static_cast<double>(html.size()) / 1e3);
    return kExitOk;
  });
}

}  // namespace gpuplan::cli
