#include "validate/inferencex_sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iterator>

#include "core/embedded_data.h"
#include "core/error.h"
#include "core/yaml_reader.h"
#include "core/yaml_tree.h"
#include "recipe/recipe_dates.h"

namespace gpuplan {

namespace {

constexpr const char* kSweepFile = "serving/inferencex_sweep.yaml";
constexpr const char* kSweepSchema = "gpuplan.inferencex_sweep/v1";

// Seconds since 1970 of a UTC time written YYYY-MM-DDTHH:MM:SS (a 'Z', a fraction after the seconds
// ignored); nullopt where it is not one.
std::optional<long long> utc_seconds(const std::string& t) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  char tail = 0;
  if (t.size() < 19 || std::sscanf(t.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &se, &tail) < 6)
    return std::nullopt;
  if (t[4] != '-' || t[7] != '-' || t[10] != 'T' || t[13] != ':' || t[16] != ':') return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year{y}, std::chrono::month{static_cast<unsigned>(mo)},
                                        std::chrono::day{static_cast<unsigned>(d)}};
  if (!ymd.ok() || h > 23 || mi > 59 || se > 59) return std::nullopt;
  const long long days = std::chrono::sys_days(ymd).time_since_epoch().count();
  return days * 86400 + h * 3600 + mi * 60 + se;
}

std::string sweep_date_field(YamlMap& m, const std::string& key, bool required) {
  const auto s = m.opt_str(key);
  if (!s) {
    if (required) throw InputError(m.path() + "." + key, "is required (a date YYYY-MM-DD)");
    return {};
  }
  const auto d = read_row_date(*s);
  if (!d) throw InputError(m.path() + "." + key, fmt::format("'{}' is not a date YYYY-MM-DD", *s));
  return *d;
}

InferenceXSweepPool read_sweep_pool(YamlMap m, bool decode) {
  InferenceXSweepPool p;
  p.workers = static_cast<int>(m.integer_in("workers", 1, 4096));
  p.tp = static_cast<int>(m.integer_in("tp", 1, 4096));
  p.ep = static_cast<int>(m.integer_in("ep", 1, 4096));
  p.attention_dp = m.boolean("attention_dp");
  if (decode) p.max_batch = m.opt_integer_in("max_batch", 1, 1000000).value_or(0);
  p.gpus = static_cast<int>(m.opt_integer_in("gpus", 2, 4096).value_or(0));
  m.reject_unknown_keys();
  return p;
}

std::vector<long long> sweep_concurrencies(YamlMap& m) {
  const YAML::Node c = m.raw("concurrencies");
  if (!c.IsSequence() || c.size() == 0)
    throw InputError(m.path() + ".concurrencies", "expected a list of client counts");
  std::vector<long long> out;
  for (const auto& x : c) {
    long long v = 0;
    try {
      v = x.as<long long>();
    } catch (const YAML::Exception&) {
      throw InputError(m.path() + ".concurrencies", "expected whole numbers >= 1");
    }
    if (v < 1) throw InputError(m.path() + ".concurrencies", "expected whole numbers >= 1");
    out.push_back(v);
  }
  return out;
}

// The fields every entry has: what ran, on which lengths, and the span of dates.
template <typename Entry>
void read_sweep_common(YamlMap& m, Entry& e, std::initializer_list<const char*> engines) {
  e.name = m.str("name");
  e.model = m.str("model");
  e.gpu = m.str("gpu");
  e.precision = m.str("precision");
  if (e.precision != "fp4" && e.precision != "fp8")
    throw InputError(m.path() + ".precision", fmt::format("'{}' is not fp4 or fp8", e.precision));
  e.engine = m.str("engine");
  std::string allowed;
  bool ok = false;
  for (const char* x : engines) {
    ok = ok || e.engine == x;
    allowed += (allowed.empty() ? "" : ", ") + std::string(x);
  }
  if (!ok) throw InputError(m.path() + ".engine", fmt::format("'{}' is not one of {}", e.engine, allowed));
  e.isl = m.integer_in("isl", 1, 10000000);
  e.osl = m.integer_in("osl", 1, 10000000);
  e.mtp = m.boolean("mtp");
  e.concurrencies = sweep_concurrencies(m);
  e.valid_from = sweep_date_field(m, "valid_from", true);
  e.valid_until = sweep_date_field(m, "valid_until", false);
  if (!e.valid_until.empty() && e.valid_until <= e.valid_from)
    throw InputError(m.path() + ".valid_until", "must be after valid_from");
  e.commit = m.str("commit");
}

InferenceXSweep parse_sweep_document(const YAML::Node& doc, const std::string& origin) {
  YamlMap top(doc, origin);
  const std::string schema = top.str("schema");
  if (schema != kSweepSchema) throw InputError(origin + ".schema", fmt::format("'{}' is not {}", schema, kSweepSchema));
  top.str("source");
  top.raw("read_through");
  InferenceXSweep out;
  for (YamlMap& m : top.map_list("entries")) {
    InferenceXSweepEntry e;
    read_sweep_common(m, e, {"dynamo+tensorrt-llm", "dynamo+sglang"});
    e.mtp_draft_tokens = static_cast<int>(m.integer_in("mtp_draft_tokens", 0, 16));
    if (!e.mtp && e.mtp_draft_tokens != 0)
      throw InputError(m.path() + ".mtp_draft_tokens", "must be 0 when mtp is false");
    e.prefill = read_sweep_pool(m.map("prefill"), false);
    e.decode = read_sweep_pool(m.map("decode"), true);
    e.config_file = m.opt_str("config_file").value_or("");
    e.clients_per_decode_worker = m.opt_boolean("clients_per_decode_worker").value_or(false);
    m.reject_unknown_keys();
    out.disaggregated.push_back(std::move(e));
  }
  for (YamlMap& m : top.map_list("single_node")) {
    InferenceXSingleNodeEntry e;
    read_sweep_common(m, e, {"tensorrt-llm", "sglang", "vllm"});
    e.image = m.str("image");
    e.tp = static_cast<int>(m.integer_in("tp", 1, 4096));
    e.ep = static_cast<int>(m.integer_in("ep", 1, 4096));
    e.attention_dp = m.boolean("attention_dp");
    m.reject_unknown_keys();
    out.single_node.push_back(std::move(e));
  }
  if (top.has("pushes")) {
    for (YamlMap& m : top.map_list("pushes")) {
      InferenceXPush p;
      p.commit = m.str("commit");
      p.time = m.str("time");
      const auto t = utc_seconds(p.time);
      if (!t) throw InputError(m.path() + ".time", fmt::format("'{}' is not a UTC time YYYY-MM-DDTHH:MM:SSZ", p.time));
      p.time_s = *t;
      if (!out.pushes.empty() && p.time_s < out.pushes.back().time_s)
        throw InputError(m.path() + ".time", "pushes must be in time order");
      p.keys = m.str_list("keys");
      m.reject_unknown_keys();
      out.pushes.push_back(std::move(p));
    }
  }
  top.reject_unknown_keys();
  return out;
}

}  // namespace

InferenceXSweep parse_inferencex_sweep(const std::string& text, const std::string& origin) {
  return parse_sweep_document(parse_yaml(text, origin), origin);
}

const InferenceXSweep& inferencex_sweep() {
  static const InferenceXSweep table = [] {
    for (const EmbeddedFile& f : embedded_data_files())
      if (f.path == kSweepFile) return parse_sweep_document(embedded_yaml(f), kSweepFile);
    throw InputError("data", std::string(kSweepFile) + " is missing");
  }();
  return table;
}

namespace {

// Whether `e` is for the query's model, GPU, weights, engine and lengths and stood in the config on the
// query's date (the widths and clients are each lookup's own).
template <typename Entry>
bool stood_in_force(const Entry& e, const InferenceXRunQuery& q) {
  if (e.model != q.model || e.gpu != q.gpu || e.precision != q.precision || e.engine != q.engine) return false;
  if (e.isl != q.isl || e.osl != q.osl) return false;
  return q.date >= e.valid_from && (e.valid_until.empty() || q.date < e.valid_until);
}

bool sweep_lists_client(const std::vector<long long>& clients, long long c) {
  return std::find(clients.begin(), clients.end(), c) != clients.end();
}

// Of the entries that match a run, those of the keys the push whose sweep ran it ran, where any are (a
// push that ran none of them says nothing of the run).
template <typename Entry>
void keep_what_the_push_ran(std::vector<const Entry*>& matches, const InferenceXPush* push) {
  if (!push || std::none_of(matches.begin(), matches.end(), [&](const Entry* e) { return push->ran(e->name); }))
    return;
  std::erase_if(matches, [&](const Entry* e) { return !push->ran(e->name); });
}

// ... and ran the query's clients, as its conc-list says.
template <typename Entry>
bool ran_in_force(const Entry& e, const InferenceXRunQuery& q) {
  return stood_in_force(e, q) && sweep_lists_client(e.concurrencies, q.concurrency);
}

}  // namespace

const InferenceXPush* inferencex_push_at(const std::vector<InferenceXPush>& pushes, const std::string& time) {
  constexpr long long kWorkflowStartS = 600;  // a push's run starts within seconds; 10 minutes at most
  const auto t = utc_seconds(time);
  if (!t || *t % 86400 == 0) return nullptr;  // a day's stamp, not a run's
  // The pushes are in time order: the last at or before the stamp.
  const auto after = std::upper_bound(pushes.begin(), pushes.end(), *t,
                                      [](long long s, const InferenceXPush& p) { return s < p.time_s; });
  if (after == pushes.begin()) return nullptr;
  const InferenceXPush& last = *std::prev(after);
  return *t - last.time_s <= kWorkflowStartS ? &last : nullptr;
}

std::string inferencex_push_words(const InferenceXPush* push, const std::string& name) {
  if (!push || !push->ran(name)) return {};
  return fmt::format(", of the config keys the sweep of the push of commit {} at {} (the run's start) ran", push->commit,
                     push->time);
}

const RecipeBodies& builtin_recipe_bodies() {
  static const RecipeBodies bodies = {&builtin_dynamo_decode_recipes(), &builtin_dynamo_sglang_decode_recipes()};
  return bodies;
}

std::optional<std::vector<long long>> sweep_entry_body_clients(const InferenceXSweepEntry& e, const std::string& date,
                                                               const RecipeBodies& bodies) {
  if (e.config_file.empty() || date.empty()) return std::nullopt;
  std::optional<std::vector<long long>> out;
  const std::string variant = e.config_file + ":";
  for (const DynamoDecodeRecipes* table : bodies)
    for (const DynamoDecodeRecipe& r : table->recipes) {
      if (r.path != e.config_file && r.path.rfind(variant, 0) != 0) continue;
      if (!recipe_date_in_range(date, r.valid_from.empty() ? table->valid_from : r.valid_from,
                                r.valid_to.empty() ? table->valid_to : r.valid_to))
        continue;
      if (!out) out.emplace();
      out->insert(out->end(), r.concurrencies.begin(), r.concurrencies.end());
    }
  return out;
}

std::vector<const InferenceXSweepEntry*> inferencex_sweep_deployments(const std::vector<InferenceXSweepEntry>& table,
                                                                      const InferenceXSweepQuery& q,
                                                                      const RecipeBodies& bodies) {
  std::vector<const InferenceXSweepEntry*> matches;  // every entry that ran it, bodies' clients first
  if (q.date.empty()) return matches;
  std::vector<const InferenceXSweepEntry*> by_list;
  for (const auto& e : table) {
    const bool shape = q.total_gpus > 0 ? e.gpus() == q.total_gpus
                                        : e.prefill.tp == q.prefill_width && e.decode.tp == q.decode_width;
    if (!shape || !stood_in_force(e, q)) continue;
    const auto body = sweep_entry_body_clients(e, q.date, bodies);
    if (body && sweep_lists_client(*body, q.concurrency)) matches.push_back(&e);
    // The clients the conc-list stands for: each value, times the decode workers where the launcher
    // counts them per worker.
    const int per = e.clients_per_decode_worker ? e.decode.workers : 1;
    if (q.concurrency % per == 0 && sweep_lists_client(e.concurrencies, q.concurrency / per)) by_list.push_back(&e);
  }
  if (matches.empty()) matches = by_list;
  keep_what_the_push_ran(matches, q.push);
  std::vector<const InferenceXSweepEntry*> out;  // one per deployment, the first of each
  for (const InferenceXSweepEntry* e : matches)
    if (std::none_of(out.begin(), out.end(), [&](const InferenceXSweepEntry* o) { return o->same_deployment(*e); }))
      out.push_back(e);
  return out;
}

namespace {

std::string sweep_pool_text(const InferenceXSweepPool& p) {
  return fmt::format("{} x (tp {} ep {}{}{})", p.workers, p.width(), p.expert_parallel(),
                     p.attention_dp ? " attention-DP" : "",
                     p.gpus > 0 ? fmt::format(": the nodes' {} GPUs a worker, the config's tp {}", p.gpus, p.tp) : "");
}

NotesPool sweep_notes_pool(const InferenceXSweepPool& p) {
  NotesPool n;
  n.workers = p.workers;
  n.pp = 1;
  n.tp = p.attention_dp ? 1 : p.width();
  n.attn_dp = p.attention_dp ? p.width() : 1;
  n.moe_ep = p.expert_parallel();
  n.moe_tp = p.width() / p.expert_parallel();
  n.bs = p.max_batch;
  return n;
}

}  // namespace

std::optional<std::string> read_sweep_deployment(const std::vector<InferenceXSweepEntry>& table,
                                                 const InferenceXSweepQuery& q, const std::string& counts_blank,
                                                 NotesDeployment& n, const InferenceXSweepEntry*& entry,
                                                 std::vector<std::string>& assumptions, const RecipeBodies& bodies) {
  entry = nullptr;
  if (q.date.empty()) return counts_blank + "; the run's date is not stated, so no sweep entry can be read";
  const auto found = inferencex_sweep_deployments(table, q, bodies);
  // The row's own columns name the run; the reasons leave them out, so that validate's skip summary
  // counts one cause once.
  const std::string what = fmt::format("the model, GPU, weights, engine, lengths, {} and clients of the run",
                                       q.total_gpus > 0 ? fmt::format("{} GPUs", q.total_gpus) : "pool widths");
  if (found.empty())
    return fmt::format("{}; no InferenceX sweep entry in force on {} ran {}", counts_blank, q.date, what);
  if (found.size() > 1) {
    const auto with_mtp =
        std::count_if(found.begin(), found.end(), [](const InferenceXSweepEntry* e) { return e->mtp; });
    return fmt::format("{}; {} InferenceX sweep entries in force on {} ran {} with different deployments ({} with "
                       "MTP, {} without): not guessed",
                       counts_blank, found.size(), q.date, what, with_mtp, found.size() - with_mtp);
  }
  const InferenceXSweepEntry& e = *found.front();
  if (e.prefill.width() % e.prefill.expert_parallel() != 0 || e.decode.width() % e.decode.expert_parallel() != 0)
    return fmt::format("{}; the InferenceX sweep entry {} states an EP that does not divide its worker's width",
                       counts_blank, e.name);
  n.prefill = sweep_notes_pool(e.prefill);
  n.decode = sweep_notes_pool(e.decode);
  n.only_counts_blank = false;
  entry = &e;
  assumptions.push_back(fmt::format(
      "deployment from InferenceX's sweep (its NVIDIA master config, entry {} in force {} to {}, from commit {}): the "
      "one entry in force on the run's date {} with its {} and clients{}: prefill {}, decode {}{}{}",
      e.name, e.valid_from, e.valid_until.empty() ? "now" : e.valid_until, e.commit, q.date,
      q.total_gpus > 0 ? fmt::format("{} GPUs", q.total_gpus) : "widths",
      inferencex_push_words(q.push, e.name), sweep_pool_text(e.prefill),
      sweep_pool_text(e.decode),
      e.decode.max_batch > 0 ? fmt::format(", decode batch {} a rank (its recipe's name)", e.decode.max_batch) : "",
      e.mtp ? ", MTP" : ", no MTP"));
  return std::nullopt;
}

int inferencex_sweep_single_node_mtp(const std::vector<InferenceXSingleNodeEntry>& table,
                                     const InferenceXSingleNodeQuery& q, const InferenceXSingleNodeEntry** first) {
  auto image = [](std::string s) {
    std::replace(s.begin(), s.end(), '#', '/');
    return s;
  };
  const std::string want_image = image(q.image);
  if (first) *first = nullptr;
  if (q.date.empty()) return -1;
  std::vector<const InferenceXSingleNodeEntry*> matches;
  for (const auto& e : table) {
    if (e.tp != q.width || !ran_in_force(e, q)) continue;
    if (!want_image.empty() && image(e.image) != want_image) continue;
    matches.push_back(&e);
  }
  keep_what_the_push_ran(matches, q.push);
  int seen = 0;  // bit 0: an entry without MTP, bit 1: one with
  for (const InferenceXSingleNodeEntry* e : matches) seen |= e->mtp ? 2 : 1;
  if (first && !matches.empty()) *first = matches.front();
  return seen == 1 ? 0 : seen == 2 ? 1 : -1;
}

}  // namespace gpuplan
