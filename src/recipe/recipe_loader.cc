#include "recipe/recipe_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <map>
#include <optional>

#include "core/error.h"
#include "core/yaml_reader.h"
#include "recipe/container_version.h"
#include "recipe/recipe_dates.h"
#include "recipe/recipe_keys.h"

namespace gpuplan {

const char* to_string(RecipeKind k) {
  switch (k) {
    case RecipeKind::deployment: return "deployment";
    case RecipeKind::prefill_limits: return "prefill_limits";
    case RecipeKind::decode_limits: return "decode_limits";
    case RecipeKind::launch: return "launch";
    case RecipeKind::mtp: return "mtp";
    case RecipeKind::script: return "script";
    case RecipeKind::ep_overlap: return "ep_overlap";
    case RecipeKind::moe_dispatcher: return "moe_dispatcher";
  }
  return "?";
}

bool Recipe::evaluable() const {
  return (kind == RecipeKind::deployment || kind == RecipeKind::mtp) && !model.empty() && !system.empty() && prefill.workers > 0 &&
         prefill.gpus_per_worker > 0 && decode.workers > 0 && decode.gpus_per_worker > 0 && isl > 0 && osl > 0;
}

bool Recipe::in_force(const std::string& date) const {
  return is_recipe_date(date) && recipe_date_in_range(date, valid_from, valid_to);
}

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// What every layout's file may state for all its rows.
struct FileDefaults {
  std::string model, engine, gpu;
  std::string fp4_weights = "fp4";  // what the table's fp4 means: nvfp4 or mxfp4 (fp4: not said)
  std::map<std::string, std::string> systems;  // gpu cell (lower case) -> catalog system or accelerator
};

FileDefaults read_file_defaults(YamlMap& root) {
  FileDefaults d;
  if (root.has("model")) d.model = root.str("model");
  if (root.has("engine")) d.engine = root.str("engine");
  if (root.has("gpu")) d.gpu = root.str("gpu");
  if (root.has("fp4_weights")) {
    d.fp4_weights = root.str("fp4_weights");
    if (d.fp4_weights != "nvfp4" && d.fp4_weights != "mxfp4")
      throw InputError(root.path() + ": fp4_weights", "must be nvfp4 or mxfp4, got '" + d.fp4_weights + "'");
  }
  if (root.has("systems")) {
    const YAML::Node m = root.raw("systems");
    if (!m.IsMap()) throw InputError(root.path() + ": systems", "must map gpu names to catalog systems");
    for (const auto& kv : m) {
      const std::string gpu = kv.first.as<std::string>(), sys = kv.second.IsScalar() ? kv.second.as<std::string>() : "";
      if (sys.empty()) throw InputError(root.path() + ": systems." + gpu, "must name a catalog system or accelerator");
      d.systems[lower(gpu)] = sys;
    }
  }
  return d;
}

std::string read_precision(YamlMap& r, bool bf16 = false) {
  const std::string p = r.str("precision");
  if (p != "fp4" && p != "fp8" && !(bf16 && p == "bf16"))
    throw InputError(r.path() + ".precision",
                     std::string(bf16 ? "must be fp4, fp8 or bf16" : "must be fp4 or fp8") + ", got '" + p + "'");
  return p;
}

std::string read_source(YamlMap& r) {
  const std::string s = r.str("source");
  if (s.find('/') == std::string::npos)
    throw InputError(r.path() + ".source", "must name a repository as owner/name, got '" + s + "'");
  return s;
}

// valid_from required; valid_to required or optional (open).
void read_dates(YamlMap& r, Recipe& k, bool to_required) {
  k.valid_from = r.str("valid_from");
  if (!is_recipe_date(k.valid_from))
    throw InputError(r.path() + ".valid_from", "must be YYYY-MM-DD, got '" + k.valid_from + "'");
  if (to_required || r.has("valid_to")) {
    k.valid_to = r.str("valid_to");
    if (!is_recipe_date(k.valid_to))
      throw InputError(r.path() + ".valid_to", "must be YYYY-MM-DD, got '" + k.valid_to + "'");
    if (k.valid_to < k.valid_from)
      throw InputError(r.path() + ".valid_to", "must not be before valid_from " + k.valid_from + ", got " + k.valid_to);
  }
}

std::vector<long long> read_concurrencies(YamlMap& r) {
  std::vector<long long> out;
  const YAML::Node c = r.raw("concurrencies");
  if (!c.IsSequence()) throw InputError(r.path() + ".concurrencies", "must be a list of client counts");
  for (const auto& v : c) {
    long long n = 0;
    try {
      n = v.as<long long>();
    } catch (const YAML::Exception&) {
      n = 0;
    }
    if (n < 1 || n > 1'000'000)
      throw InputError(r.path() + ".concurrencies", "must list whole client counts, 1 to 1,000,000");
    out.push_back(n);
  }
  if (out.empty()) throw InputError(r.path() + ".concurrencies", "must list at least one");
  return out;
}

Recipe start(const RecipeTable& t, const FileDefaults& d, YamlMap& r, RecipeKind kind) {
  Recipe k;
  k.kind = kind;
  k.table = t.origin;
  k.where = r.path();
  k.model = d.model;
  k.engine = d.engine;
  k.gpu = d.gpu;
  if (r.has("name")) k.name = r.str("name");
  return k;
}

void finish(const FileDefaults& d, YamlMap& r, Recipe& k) {
  k.weights = k.precision == "fp4" ? d.fp4_weights : k.precision;
  if (k.system.empty() && !k.gpu.empty()) {
    const auto it = d.systems.find(lower(k.gpu));
    k.system = it != d.systems.end() ? it->second : lower(k.gpu);
  }
  r.reject_unknown_keys();
}

// --- gpuplan.dynamo_decode_recipes/v1: whole deployments (the decode side of Dynamo recipes) ---
Recipe read_dynamo_decode(const RecipeTable& t, const FileDefaults& d, YamlMap& r) {
  Recipe k = start(t, d, r, RecipeKind::deployment);
  k.recipe = r.str("path");
  k.commit = r.has("commit") ? r.str("commit") : t.commit;
  k.source = r.has("source") ? r.str("source") : t.source;
  k.valid_from = r.has("valid_from") ? r.str("valid_from") : t.valid_from;
  k.valid_to = r.has("valid_to") ? r.str("valid_to") : t.valid_to;
  for (const std::string* x : {&k.valid_from, &k.valid_to})
    if (!is_recipe_date(*x)) throw InputError(r.path() + ".valid_from/valid_to", "must be YYYY-MM-DD, got '" + *x + "'");
  k.gpu = r.str("gpu");
  k.precision = read_precision(r);
  k.isl = r.integer_in("isl", 1, 10'000'000);
  k.osl = r.integer_in("osl", 1, 10'000'000);
  k.prefill.workers = static_cast<int>(r.integer_in("prefill_workers", 1, 4096));
  k.prefill.gpus_per_worker = static_cast<int>(r.integer_in("prefill_gpus_per_worker", 1, 4096));
  k.decode.workers = static_cast<int>(r.integer_in("decode_workers", 1, 4096));
  k.decode.gpus_per_worker = static_cast<int>(r.integer_in("decode_gpus_per_worker", 1, 4096));
  k.decode.attention_dp = r.boolean("decode_attention_dp") ? 1 : 0;
  k.decode.max_batch = r.integer_in("decode_max_batch_size", 0, 1'000'000);
  k.mtp_draft_tokens = static_cast<int>(r.integer_in("mtp_draft_tokens", 0, 16));
  k.mtp = k.mtp_draft_tokens > 0 ? 1 : 0;
  k.decode.eplb_slots = static_cast<int>(r.integer_in("eplb_slots", 0, 100'000));
  if (r.has("scheduler_recv_interval"))
    k.decode.scheduler_recv_interval = static_cast<int>(r.integer_in("scheduler_recv_interval", 1, 1000));
  k.decode.fp8_gemm_triton = read_recipe_fp8_gemm_triton(r, k.precision == "fp4");
  k.concurrencies = read_concurrencies(r);
  finish(d, r, k);
  return k;
}

// --- gpuplan.dynamo_prefill_recipes/v1: a prefill worker's limits for a deployment shape ---
Recipe read_dynamo_prefill(const RecipeTable& t, const FileDefaults& d, YamlMap& r) {
  Recipe k = start(t, d, r, RecipeKind::prefill_limits);
  const std::string engine = r.str("engine");
  if (engine != "sglang" && engine != "trtllm")
    throw InputError(r.path() + ".engine", "must be sglang or trtllm, got '" + engine + "'");
  k.engine = engine == "trtllm" ? "dynamo+tensorrt-llm" : "dynamo+sglang";
  k.gpu = r.str("gpu");
  if (k.gpu.empty()) throw InputError(r.path() + ".gpu", "must name the rows' gpu cell, got ''");
  k.precision = read_precision(r);
  k.isl = r.integer_in("isl", 1, 10'000'000);
  k.prefill.gpus_per_worker = static_cast<int>(r.integer_in("prefill_tp", 1, 4096));
  k.prefill.attention_dp = r.boolean("prefill_attention_dp") ? 1 : 0;
  k.decode.attention_dp = read_recipe_either(r, "decode_attention_dp");
  k.mtp = read_recipe_either(r, "mtp");
  k.valid_from = r.str("valid_from");
  k.valid_to = r.str("valid_to");
  for (const auto& [key, x] : {std::pair{"valid_from", &k.valid_from}, std::pair{"valid_to", &k.valid_to}})
    if (!is_recipe_date(*x)) throw InputError(r.path() + "." + key, "must be YYYY-MM-DD, got '" + *x + "'");
  if (k.valid_to < k.valid_from)
    throw InputError(r.path() + ".valid_to", "must not be before valid_from " + k.valid_from + ", got " + k.valid_to);
  k.prefill.max_batch = r.integer_in("max_batch", 1, 1'000'000);
  k.prefill.max_tokens = r.integer_in("max_tokens", 1, 16'777'216);
  k.prefill.fp8_gemm_triton = read_recipe_fp8_gemm_triton(r, k.precision == "fp4");
  k.source = read_source(r);
  if (r.has("commit")) {
    k.commit = r.str("commit");
    if (k.commit.size() != 40 || !std::all_of(k.commit.begin(), k.commit.end(), [](char c) {
          return std::isxdigit(static_cast<unsigned char>(c)) != 0;
        }))
      throw InputError(r.path() + ".commit", "must be 40 hex digits, got '" + k.commit + "'");
  }
  k.recipe = r.str("recipe");
  if (k.recipe.empty()) throw InputError(r.path() + ".recipe", "must name the recipe path or setting, got ''");
  finish(d, r, k);
  return k;
}

// --- gpuplan.inferencex_mori_recipes/v1: launch, decode and prefill sections ---
void read_mori_common(YamlMap& r, Recipe& k) {
  k.precision = read_precision(r);
  read_dates(r, k, false);
  k.source = read_source(r);
  k.recipe = r.str("recipe");
  if (k.recipe.empty()) throw InputError(r.path() + ".recipe", "must name the files or pull request, got ''");
}

Recipe read_mori_launch(const RecipeTable& t, const FileDefaults& d, YamlMap& r) {
  Recipe k = start(t, d, r, RecipeKind::launch);
  read_mori_common(r, k);
  auto whole_worker = [&](const char* key) {
    const std::string v = r.str(key);
    if (v != "worker" && v != "config") throw InputError(r.path() + "." + key, "must be worker or config, got '" + v + "'");
    return v == "worker";
  };
  k.tp_is_worker = whole_worker("tp");
  k.ep_is_worker = whole_worker("ep");
  finish(d, r, k);
  return k;
}

Recipe read_mori_decode(const RecipeTable& t, const FileDefaults& d, YamlMap& r) {
  Recipe k = start(t, d, r, RecipeKind::decode_limits);
  read_mori_common(r, k);
  k.decode.attention_dp = r.boolean("attention_dp") ? 1 : 0;
  k.decode.ep = read_recipe_either(r, "ep");
  k.decode.max_batch = r.integer_in("max_running_requests", 0, 1'000'000);
  finish(d, r, k);
  return k;
}

Recipe read_mori_prefill(const RecipeTable& t, const FileDefaults& d, YamlMap& r) {
  Recipe k = start(t, d, r, RecipeKind::prefill_limits);
  read_mori_common(r, k);
  k.prefill.attention_dp = r.boolean("attention_dp") ? 1 : 0;
  k.prefill.max_running_requests = r.integer_in("max_running_requests", 1, 1'000'000);
  const bool chunk = r.has("chunked_prefill_size"), dispatch = r.has("dispatch_tokens_per_rank");
  if (chunk == dispatch)
    throw InputError(r.path() + ".chunked_prefill_size",
                     "exactly one of chunked_prefill_size and dispatch_tokens_per_rank must be given");
  if (chunk) k.prefill.chunked_prefill_size = r.integer_in("chunked_prefill_size", 1, 16'777'216);
  if (dispatch) k.prefill.dispatch_tokens_per_rank = r.integer_in("dispatch_tokens_per_rank", 1, 16'777'216);
  k.prefill.max_prefill_tokens = r.integer_in("max_prefill_tokens", 1, 16'777'216);
  finish(d, r, k);
  return k;
}

// --- gpuplan.inferencex_mori_mtp/v1: draft tokens by deployment and concurrency ---
void read_worker_shape(YamlMap m, RecipePool& p) {
  p.workers = static_cast<int>(m.integer_in("workers", 1, 4096));
  p.gpus_per_worker = static_cast<int>(m.integer_in("width", 1, 4096));
  p.ep = m.boolean("ep") ? 1 : 0;
  p.attention_dp = m.boolean("attention_dp") ? 1 : 0;
  m.reject_unknown_keys();
}

Recipe read_mori_mtp(const RecipeTable& t, const FileDefaults& d, YamlMap& r) {
  Recipe k = start(t, d, r, RecipeKind::mtp);
  k.source = t.source;
  k.precision = read_precision(r);
  k.isl = r.integer_in("isl", 1, 16'777'216);
  k.osl = r.integer_in("osl", 1, 16'777'216);
  read_worker_shape(r.map("prefill"), k.prefill);
  read_worker_shape(r.map("decode"), k.decode);
  for (const std::string& c : r.str_list("concurrencies")) {
    long long v = 0;
    try {
      size_t used = 0;
      v = std::stoll(c, &used);
      if (used != c.size()) v = 0;
    } catch (const std::exception&) {
      v = 0;
    }
    if (v < 1 || v > 1'000'000)
      throw InputError(r.path() + ".concurrencies", "must list whole numbers 1 to 1,000,000, got '" + c + "'");
    k.concurrencies.push_back(v);
  }
  if (k.concurrencies.empty()) throw InputError(r.path() + ".concurrencies", "must list at least one");
  k.valid_from = r.str("valid_from");
  if (!is_recipe_date(k.valid_from))
    throw InputError(r.path() + ".valid_from", "must be YYYY-MM-DD, got '" + k.valid_from + "'");
  if (r.has("valid_to")) {
    k.valid_to = r.str("valid_to");
    if (!is_recipe_date(k.valid_to) || k.valid_to < k.valid_from)
      throw InputError(r.path() + ".valid_to",
                       "must be YYYY-MM-DD, not before valid_from " + k.valid_from + ", got '" + k.valid_to + "'");
  }
  k.mtp_draft_tokens = static_cast<int>(r.integer_in("mtp_draft_tokens", 1, 16));
  k.mtp = 1;
  k.commit = r.str("commit");
  k.recipe = r.str("recipe");
  finish(d, r, k);
  return k;
}

// --- gpuplan.inferencex_scripts/v1: what single-node launch scripts pass beyond the sweep config ---
Recipe read_script(const RecipeTable& t, const FileDefaults& d, YamlMap& r) {
  Recipe k = start(t, d, r, RecipeKind::script);
  if (k.name.empty()) throw InputError(r.path() + ".name", "must name the row (unique over the recipes)");
  if (r.has("model")) k.model = r.str("model");
  if (r.has("engine")) k.engine = r.str("engine");
  if (r.has("gpu")) k.gpu = r.str("gpu");
  if (r.has("generation")) k.generation = r.str("generation");
  k.precision = read_precision(r, true);
  if (r.has("tp")) k.decode.gpus_per_worker = static_cast<int>(r.integer_in("tp", 1, 4096));
  if (r.has("scheduler_recv_interval"))
    k.decode.scheduler_recv_interval = static_cast<int>(r.integer_in("scheduler_recv_interval", 2, 1000));
  if (r.has("mem_fraction_static")) k.decode.mem_fraction_static = r.num_in("mem_fraction_static", 0.05, 1);
  if (r.has("mtp")) k.mtp = read_recipe_either(r, "mtp");
  if (r.has("mtp_draft_tokens")) {
    if (k.mtp == 0) throw InputError(r.path() + ".mtp", "is false but the row states mtp_draft_tokens");
    k.mtp_draft_tokens = static_cast<int>(r.integer_in("mtp_draft_tokens", 1, 16));
    k.mtp = 1;
  }
  if (r.has("isl")) k.isl = r.integer_in("isl", 1, 10'000'000);
  if (r.has("osl")) k.osl = r.integer_in("osl", 1, 10'000'000);
  if (r.has("min_concurrency")) k.min_concurrency = r.integer_in("min_concurrency", 1, 1'000'000);
  if (r.has("max_concurrency")) k.max_concurrency = r.integer_in("max_concurrency", std::max(1LL, k.min_concurrency), 1'000'000);
  if (r.has("attention_dp")) k.decode.attention_dp = read_recipe_either(r, "attention_dp");
  if (r.has("batch_wait_iters")) k.batch_wait_iters = static_cast<int>(r.integer_in("batch_wait_iters", 1, 100'000));
  if (r.has("batch_wait_tokens_ratio"))
    k.batch_wait_tokens_ratio = r.num_in("batch_wait_tokens_ratio", 0, 1);
  if ((k.batch_wait_iters > 0) != (k.batch_wait_tokens_ratio > 0))
    throw InputError(r.path() + ".batch_wait_iters", "batch_wait_iters and batch_wait_tokens_ratio go together");
  if (k.batch_wait_iters == 0 && k.mtp_draft_tokens == 0 && k.decode.scheduler_recv_interval == 1 &&
      k.decode.mem_fraction_static == 0)
    throw InputError(r.path(), "states no setting: give batch_wait_iters (with the ratio), mtp_draft_tokens, "
                               "scheduler_recv_interval or mem_fraction_static");
  read_dates(r, k, false);
  k.source = read_source(r);
  if (r.has("commit")) k.commit = r.str("commit");
  k.recipe = r.str("recipe");
  if (k.recipe.empty()) throw InputError(r.path() + ".recipe", "must name the script and its branch, got ''");
  finish(d, r, k);
  return k;
}

// --- container tables: a training recipe's setting by container ---
// gpuplan.megatron_bridge_ep_overlap/v1 (the expert all-to-all overlap, `ep_overlap: true|false`) and
// gpuplan.megatron_bridge_moe_dispatcher/v1 (the MoE token dispatcher, `dispatcher: alltoall|flex`).
std::string read_container(YamlMap& r, const char* key, const RecipeTable& t) {
  const std::string v = r.str(key);
  const auto c = parse_container_version(v);
  bool read = false;
  for (const auto& [name, tag] : t.containers) read = read || name == v;
  if (!c || !read)
    throw InputError(r.path() + "." + key, fmt::format("must be one of the containers the file read (its `containers`, "
                                                       "YY.MM or YY.MM.NN), got '{}'", v));
  return v;
}

// A container table's setting (`key` in a row, `recipe_default` at the top): 1 on / alltoall, 0 off / flex.
int read_container_setting(YamlMap& m, RecipeKind kind, const char* key) {
  if (kind == RecipeKind::ep_overlap) return m.boolean(key) ? 1 : 0;
  const std::string v = m.str(key);
  if (v != "alltoall" && v != "flex")
    throw InputError(m.path() + "." + key, "must be alltoall or flex (MoE token dispatcher), got '" + v + "'");
  return v == "alltoall" ? 1 : 0;
}

void read_container_row(RecipeTable& t, const FileDefaults& d, YamlMap& r, RecipeKind kind) {
  Recipe k = start(t, d, r, kind);
  k.source = t.source;
  if (r.has("model")) k.model = r.str("model");
  if (k.model.empty()) throw InputError(r.path() + ".model", "must name the model (catalog name)");
  k.gpu = r.str("gpu");
  if (k.gpu.empty()) throw InputError(r.path() + ".gpu", "must name the catalog accelerator");
  (kind == RecipeKind::ep_overlap ? k.ep_overlap : k.moe_alltoall) =
      read_container_setting(r, kind, kind == RecipeKind::ep_overlap ? "ep_overlap" : "dispatcher");
  k.container_from = read_container(r, "from", t);
  if (r.has("until")) {
    k.container_until = read_container(r, "until", t);
    if (!(*parse_container_version(k.container_from) < *parse_container_version(k.container_until)))
      throw InputError(r.path() + ".until", "must be a container after `from` " + k.container_from + ", got " +
                                                k.container_until);
  }
  k.recipe = r.str("recipe");
  if (k.recipe.empty()) throw InputError(r.path() + ".recipe", "must name the recipe file and configs, got ''");
  if (r.has("commit")) k.commit = r.str("commit");
  const std::vector<std::string> precisions = r.str_list("precisions");
  if (precisions.empty()) throw InputError(r.path() + ".precisions", "must list at least one precision");
  for (const std::string& p : precisions) {
    if (p != "bf16" && p != "fp8" && p != "mxfp8" && p != "nvfp4")
      throw InputError(r.path() + ".precisions", "must list bf16, fp8, mxfp8 or nvfp4, got '" + p + "'");
    Recipe one = k;
    one.precision = one.weights = p;
    one.system = lower(one.gpu);
    for (const Recipe& o : t.recipes) {
      const auto a_to = o.container_until.empty() ? std::nullopt : parse_container_version(o.container_until);
      const auto b_to = one.container_until.empty() ? std::nullopt : parse_container_version(one.container_until);
      const bool meet = (!a_to || *parse_container_version(one.container_from) < *a_to) &&
                        (!b_to || *parse_container_version(o.container_from) < *b_to);
      if (o.model == one.model && o.system == one.system && o.precision == p && meet)
        throw InputError(one.where, fmt::format("matches the same rows as {} (model, gpu, precision {} and containers "
                                                "meet): one row, one entry", o.where, p));
    }
    t.recipes.push_back(std::move(one));
  }
  r.reject_unknown_keys();
}

void read_container_table(RecipeTable& t, const FileDefaults& d, YamlMap& root, RecipeKind kind) {
  t.source = root.str("source");
  if (t.source.find('/') == std::string::npos)
    throw InputError(t.origin + ": source", "must name a repository as owner/name, got '" + t.source + "'");
  const YAML::Node m = root.raw("containers");
  if (!m.IsMap() || m.size() == 0)
    throw InputError(t.origin + ": containers", "must map each container read (YY.MM[.NN]) to its release tag");
  std::optional<ContainerVersion> last;
  for (const auto& kv : m) {
    const std::string c = kv.first.as<std::string>(), tag = kv.second.IsScalar() ? kv.second.as<std::string>() : "";
    const auto v = parse_container_version(c);
    if (!v) throw InputError(t.origin + ": containers." + c, "must be a container YY.MM or YY.MM.NN");
    if (last && !(*last < *v)) throw InputError(t.origin + ": containers." + c, "must follow the one before (ascending)");
    if (tag.empty()) throw InputError(t.origin + ": containers." + c, "must name the release tag it runs");
    last = v;
    t.containers.emplace_back(c, tag);
  }
  t.recipe_default = read_container_setting(root, kind, "recipe_default");
  for (YamlMap r : root.map_list("recipes")) read_container_row(t, d, r, kind);
  if (t.recipes.empty()) throw InputError(t.origin + ": recipes", "must list at least one recipe");
}

// Two rows of one table that would match the same benchmark row: an error naming both.
bool same_rows(const Recipe& a, const Recipe& b) {
  if (a.kind != b.kind || a.precision != b.precision ||
      !recipe_date_ranges_meet(a.valid_from, a.valid_to, b.valid_from, b.valid_to))
    return false;
  switch (a.kind) {
    case RecipeKind::prefill_limits:
      return a.engine == b.engine && a.gpu == b.gpu && a.isl == b.isl &&
             a.prefill.gpus_per_worker == b.prefill.gpus_per_worker && a.prefill.attention_dp == b.prefill.attention_dp &&
             recipe_keys_meet(a.decode.attention_dp, b.decode.attention_dp) && recipe_keys_meet(a.mtp, b.mtp);
    case RecipeKind::decode_limits:
      return a.decode.attention_dp == b.decode.attention_dp && recipe_keys_meet(a.decode.ep, b.decode.ep);
    case RecipeKind::launch: return true;
    case RecipeKind::script:
      return a.model == b.model && a.engine == b.engine && a.gpu == b.gpu && a.isl == b.isl && a.osl == b.osl &&
             recipe_keys_meet(a.decode.attention_dp, b.decode.attention_dp) &&
             a.generation == b.generation && a.decode.gpus_per_worker == b.decode.gpus_per_worker &&
             std::max(a.min_concurrency, b.min_concurrency) <=
                 std::min(a.max_concurrency ? a.max_concurrency : 1'000'000, b.max_concurrency ? b.max_concurrency : 1'000'000) &&
             (a.batch_wait_iters > 0) == (b.batch_wait_iters > 0) && (a.mtp_draft_tokens > 0) == (b.mtp_draft_tokens > 0) &&
             (a.decode.scheduler_recv_interval > 1) == (b.decode.scheduler_recv_interval > 1) &&
             (a.decode.mem_fraction_static > 0) == (b.decode.mem_fraction_static > 0) && recipe_keys_meet(a.mtp, b.mtp);
    case RecipeKind::deployment:
    case RecipeKind::mtp:
    case RecipeKind::ep_overlap:
    case RecipeKind::moe_dispatcher: return false;  // several may match: the readers resolve them
  }
  return false;
}

const char* same_rows_keys(RecipeKind k, bool dynamo) {
  switch (k) {
    case RecipeKind::prefill_limits:
      return dynamo ? "engine, gpu, precision, isl, prefill_tp, attention-DP, mtp and dates meet"
                    : "precision, attention_dp and dates meet";
    case RecipeKind::decode_limits: return "precision, attention_dp, ep and dates meet";
    case RecipeKind::launch: return "precision and dates meet";
    default: return "model, engine, gpu, generation, precision, isl, osl, tp, attention_dp, mtp, concurrencies, setting and dates meet";
  }
}

void add_checked(RecipeTable& t, Recipe k) {
  for (const Recipe& o : t.recipes)
    if (same_rows(o, k))
      throw InputError(k.where, fmt::format("matches the same rows as {} ({}): one row, one entry", o.where,
                                            same_rows_keys(k.kind, t.schema == kDynamoPrefillSchema)));
  t.recipes.push_back(std::move(k));
}

}  // namespace

RecipeTable load_recipe_table(const std::string& text, const std::string& origin) {
  return load_recipe_table(parse_yaml(text, origin), origin);
}

RecipeTable load_recipe_table(const YAML::Node& doc, const std::string& origin) {
  YamlMap root(doc, origin);
  RecipeTable t;
  t.origin = origin;
  t.schema = root.str("schema");
  const FileDefaults d = read_file_defaults(root);
  if (t.schema == kDynamoDecodeSchema) {
    t.source = root.str("source");
    t.commit = root.str("commit");
    t.valid_from = root.str("valid_from");
    t.valid_to = root.str("valid_to");
    for (const std::string* x : {&t.valid_from, &t.valid_to})
      if (!is_recipe_date(*x)) throw InputError(origin + ": valid_from/valid_to", "must be YYYY-MM-DD, got '" + *x + "'");
    for (YamlMap r : root.map_list("recipes")) t.recipes.push_back(read_dynamo_decode(t, d, r));
  } else if (t.schema == kDynamoPrefillSchema) {
    for (YamlMap r : root.map_list("recipes")) add_checked(t, read_dynamo_prefill(t, d, r));
    if (t.recipes.empty()) throw InputError(origin + ": recipes", "must list at least one recipe");
  } else if (t.schema == kMoriSchema) {
    if (root.has("launch"))
      for (YamlMap r : root.map_list("launch")) add_checked(t, read_mori_launch(t, d, r));
    size_t before = t.recipes.size();
    for (YamlMap r : root.map_list("decode")) add_checked(t, read_mori_decode(t, d, r));
    if (t.recipes.size() == before) throw InputError(origin + ": decode", "must list at least one entry");
    before = t.recipes.size();
    for (YamlMap r : root.map_list("prefill")) add_checked(t, read_mori_prefill(t, d, r));
    if (t.recipes.size() == before) throw InputError(origin + ": prefill", "must list at least one entry");
  } else if (t.schema == kMoriMtpSchema) {
    t.source = root.str("source");
    if (t.source.find('/') == std::string::npos)
      throw InputError(origin + ": source", "must name a repository as owner/name, got '" + t.source + "'");
    for (YamlMap r : root.map_list("entries")) t.recipes.push_back(read_mori_mtp(t, d, r));
  } else if (t.schema == kScriptSchema) {
    for (YamlMap r : root.map_list("scripts")) add_checked(t, read_script(t, d, r));
  } else if (t.schema == kEpOverlapSchema) {
    read_container_table(t, d, root, RecipeKind::ep_overlap);
  } else if (t.schema == kMoeDispatcherSchema) {
    read_container_table(t, d, root, RecipeKind::moe_dispatcher);
  } else {
    throw InputError(origin + ": schema", fmt::format("must be one of {}, {}, {}, {}, {}, {} or {}, got '{}'",
                                                      kDynamoDecodeSchema, kDynamoPrefillSchema, kMoriSchema,
                                                      kMoriMtpSchema, kScriptSchema, kEpOverlapSchema,
                                                      kMoeDispatcherSchema, t.schema));
  }
  root.reject_unknown_keys();
  return t;
}

namespace {

std::string strip(std::string s, const std::string& prefix, const std::string& suffix) {
  if (s.rfind(prefix, 0) == 0) s = s.substr(prefix.size());
  if (const auto at = s.find(suffix); at != std::string::npos) s.erase(at, suffix.size());
  return s;
}

std::string either(int v, const char* on, const char* off) { return v < 0 ? "" : v ? on : off; }

}  // namespace

std::string default_recipe_name(const Recipe& r) {
  const std::string gpu = lower(r.gpu), at = "@" + r.valid_from;
  switch (r.kind) {
    case RecipeKind::deployment: {
      // recipes/trtllm/b200-fp4/1k1k/mtp/x.yaml -> trtllm/b200-fp4/1k1k/mtp/x; a resolved variant
      // (path.yaml:zip_override_x[1]) -> .../x:x1.
      std::string n = strip(r.recipe, "recipes/", ".yaml");
      if (const auto z = n.find(":zip_override_"); z != std::string::npos) {
        std::string v = n.substr(z + 14);
        v.erase(std::remove_if(v.begin(), v.end(), [](char c) { return c == '[' || c == ']'; }), v.end());
        n = n.substr(0, z) + ":" + v;
      }
      // InferenceX's in-tree copies (benchmarks/multi_node/srt-slurm-recipes/...): inferencex/...
      if (const auto in_tree = n.find("srt-slurm-recipes/"); in_tree != std::string::npos)
        return "inferencex/" + n.substr(in_tree + 18);
      if (r.engine == "dynamo+sglang" && n.rfind("sglang/", 0) != 0) n = "sglang/" + n;
      return n;
    }
    case RecipeKind::prefill_limits:
      if (r.engine.rfind("dynamo", 0) == 0)
        return fmt::format("prefill/{}/{}-{}/isl{}/p{}{}{}{}{}", r.engine == "dynamo+sglang" ? "sglang" : "trtllm", gpu,
                           r.precision, r.isl, r.prefill.attention_dp ? "dep" : "tep", r.prefill.gpus_per_worker,
                           either(r.decode.attention_dp, "-d-dep", "-d-tep"), either(r.mtp, "-mtp", "-nomtp"), at);
      return fmt::format("mori/prefill/{}/{}{}", r.precision, r.prefill.attention_dp ? "dep" : "tp", at);
    case RecipeKind::decode_limits:
      return fmt::format("mori/decode/{}/{}{}{}", r.precision, r.decode.attention_dp ? "dep" : "tp",
                         either(r.decode.ep, "-ep", "-noep"), at);
    case RecipeKind::launch: return fmt::format("mori/launch/{}{}", r.precision, at);
    case RecipeKind::mtp:
      return fmt::format("mori/mtp/{}/{}-{}/{}p{}{}-{}d{}{}{}", r.precision, r.isl, r.osl, r.prefill.workers,
                         r.prefill.attention_dp ? "dep" : r.prefill.ep ? "tep" : "tp", r.prefill.gpus_per_worker,
                         r.decode.workers, r.decode.attention_dp ? "dep" : r.decode.ep ? "tep" : "tp",
                         r.decode.gpus_per_worker, at);
    case RecipeKind::script: return r.name;
    case RecipeKind::ep_overlap:
      return fmt::format("ep-overlap/{}/{}-{}@{}", lower(r.model), r.system, r.precision, r.container_from);
    case RecipeKind::moe_dispatcher:
      return fmt::format("moe-dispatcher/{}/{}-{}@{}", lower(r.model), r.system, r.precision, r.container_from);
  }
  return r.name;
}

}  // namespace gpuplan
