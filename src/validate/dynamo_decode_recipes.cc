#include "validate/dynamo_decode_recipes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/embedded_data.h"
#include "core/error.h"
#include "core/yaml_reader.h"
#include "validate/recipe_dates.h"
#include "validate/recipe_keys.h"

namespace gpuplan {

namespace {

std::string decode_recipe_lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The row's gpu cell as the recipes' folders name it: B200 -> b200, H100-SXM -> h100.
std::string decode_recipe_gpu(const std::string& cell) {
  std::string g = decode_recipe_lower(cell);
  if (const auto dash = g.find('-'); dash != std::string::npos) g = g.substr(0, dash);
  return g;
}

}  // namespace

DynamoDecodeRecipes parse_dynamo_decode_recipes(const std::string& text, const std::string& origin) {
  YamlMap root(parse_yaml(text, origin), origin);
  if (const std::string s = root.str("schema"); s != "gpuplan.dynamo_decode_recipes/v1")
    throw InputError(origin + ": schema", "must be gpuplan.dynamo_decode_recipes/v1, got '" + s + "'");
  DynamoDecodeRecipes out;
  out.source = root.str("source");
  out.commit = root.str("commit");
  out.valid_from = root.str("valid_from");
  out.valid_to = root.str("valid_to");
  for (const std::string* d : {&out.valid_from, &out.valid_to})
    if (!is_recipe_date(*d)) throw InputError(origin + ": valid_from/valid_to", "must be YYYY-MM-DD, got '" + *d + "'");
  for (YamlMap r : root.map_list("recipes")) {
    DynamoDecodeRecipe k;
    k.path = r.str("path");
    k.commit = r.has("commit") ? r.str("commit") : out.commit;
    k.source = r.has("source") ? r.str("source") : out.source;
    k.valid_from = r.has("valid_from") ? r.str("valid_from") : out.valid_from;
    k.valid_to = r.has("valid_to") ? r.str("valid_to") : out.valid_to;
    for (const std::string* d : {&k.valid_from, &k.valid_to})
      if (!is_recipe_date(*d)) throw InputError(r.path() + ".valid_from/valid_to", "must be YYYY-MM-DD, got '" + *d + "'");
    k.gpu = r.str("gpu");
    k.precision = r.str("precision");
    if (k.precision != "fp4" && k.precision != "fp8")
      throw InputError(r.path() + ".precision", "must be fp4 or fp8, got '" + k.precision + "'");
    k.isl = r.integer_in("isl", 1, 10'000'000);
    k.osl = r.integer_in("osl", 1, 10'000'000);
    k.prefill_workers = static_cast<int>(r.integer_in("prefill_workers", 1, 4096));
    k.prefill_gpus_per_worker = static_cast<int>(r.integer_in("prefill_gpus_per_worker", 1, 4096));
    k.decode_workers = static_cast<int>(r.integer_in("decode_workers", 1, 4096));
    k.decode_gpus_per_worker = static_cast<int>(r.integer_in("decode_gpus_per_worker", 1, 4096));
    k.decode_attention_dp = r.boolean("decode_attention_dp");
    k.decode_max_batch_size = r.integer_in("decode_max_batch_size", 0, 1'000'000);
    k.mtp_draft_tokens = static_cast<int>(r.integer_in("mtp_draft_tokens", 0, 16));
    k.eplb_slots = static_cast<int>(r.integer_in("eplb_slots", 0, 100'000));
    if (r.has("scheduler_recv_interval"))
      k.scheduler_recv_interval = static_cast<int>(r.integer_in("scheduler_recv_interval", 1, 1000));
    k.fp8_gemm_triton = read_recipe_fp8_gemm_triton(r, k.precision == "fp4");
    const YAML::Node c = r.raw("concurrencies");
    if (!c.IsSequence()) throw InputError(r.path() + ".concurrencies", "must be a list of client counts");
    for (const auto& v : c) {
      long long n = 0;
      try {
        n = v.as<long long>();
      } catch (const YAML::Exception&) {
        n = 0;
      }
      if (n < 1) throw InputError(r.path() + ".concurrencies", "must be whole client counts of at least 1");
      k.concurrencies.push_back(n);
    }
    r.reject_unknown_keys();
    out.recipes.push_back(std::move(k));
  }
  root.reject_unknown_keys();
  return out;
}

namespace {

DynamoDecodeRecipes embedded_decode_recipes(const char* path) {
  for (const auto& f : embedded_data_files())
    if (f.path == path) return parse_dynamo_decode_recipes(std::string(f.text), path);
  throw InputError(path, "not embedded in this build");
}

}  // namespace

const DynamoDecodeRecipes& builtin_dynamo_decode_recipes() {
  static const DynamoDecodeRecipes recipes = embedded_decode_recipes("recipes/dynamo_trtllm_decode.yaml");
  return recipes;
}

const DynamoDecodeRecipes& builtin_dynamo_sglang_decode_recipes() {
  static const DynamoDecodeRecipes recipes = embedded_decode_recipes("recipes/dynamo_sglang_decode.yaml");
  return recipes;
}

DynamoDecodeMatch match_dynamo_decode_recipe(const DynamoDecodeRecipes& recipes, const DynamoDecodeQuery& q) {
  DynamoDecodeMatch out;
  if (!is_recipe_date(q.date)) return out;
  const std::string gpu = decode_recipe_gpu(q.gpu), prec = decode_recipe_lower(q.precision);
  const std::string want = prec.find("fp4") != std::string::npos   ? "fp4"
                           : prec.find("fp8") != std::string::npos ? "fp8"
                                                                   : "";
  std::vector<const DynamoDecodeRecipe*> same;
  for (const DynamoDecodeRecipe& r : recipes.recipes)
    if (r.gpu == gpu && r.precision == want && r.isl == q.isl && r.osl == q.osl &&
        r.prefill_workers == q.prefill_workers && r.prefill_gpus_per_worker == q.prefill_gpus_per_worker &&
        r.decode_workers == q.decode_workers && r.decode_gpus_per_worker == q.decode_gpus_per_worker &&
        r.decode_attention_dp == q.decode_attention_dp && (r.mtp_draft_tokens > 0) == q.mtp &&
        recipe_date_in_range(q.date, r.valid_from.empty() ? recipes.valid_from : r.valid_from,
                             r.valid_to.empty() ? recipes.valid_to : r.valid_to))
      same.push_back(&r);
  std::vector<const DynamoDecodeRecipe*> ran;
  for (const DynamoDecodeRecipe* r : same)
    if (std::find(r->concurrencies.begin(), r->concurrencies.end(), q.concurrency) != r->concurrencies.end())
      ran.push_back(r);
  const std::vector<const DynamoDecodeRecipe*>& pick = ran.empty() ? same : ran;
  out.candidates = static_cast<int>(pick.size());
  if (pick.empty()) return out;
  out.draft_known = out.batch_known = out.recv_known = out.fp8_gemm_known = true;
  out.fp8_gemm_triton = pick.front()->fp8_gemm_triton;
  out.mtp_draft_tokens = pick.front()->mtp_draft_tokens;
  out.scheduler_recv_interval = pick.front()->scheduler_recv_interval;
  out.decode_max_batch = pick.front()->decode_max_batch_size;
  out.eplb_slots = pick.front()->eplb_slots;
  for (const DynamoDecodeRecipe* r : pick) {
    out.draft_known = out.draft_known && r->mtp_draft_tokens == out.mtp_draft_tokens;
    out.batch_known = out.batch_known && r->decode_max_batch_size == out.decode_max_batch;
    out.recv_known = out.recv_known && r->scheduler_recv_interval == out.scheduler_recv_interval;
    out.fp8_gemm_known = out.fp8_gemm_known && r->fp8_gemm_triton == out.fp8_gemm_triton;
    out.recipes += (out.recipes.empty() ? "" : ", ") + r->path;
    const std::string c = r->commit.substr(0, 8);
    if (out.commits.find(c) == std::string::npos) out.commits += (out.commits.empty() ? "" : ", ") + c;
    if (out.sources.find(r->source) == std::string::npos)
      out.sources += (out.sources.empty() ? "" : ", ") + r->source;
  }
  return out;
}

}  // namespace gpuplan
