#include "validate/dynamo_decode_recipes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/error.h"
#include "recipe/recipe_catalog.h"
#include "recipe/recipe_dates.h"

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

namespace {

// The recipe table as this reader's view (recipe/recipe_loader.h reads and checks the file).
DynamoDecodeRecipes decode_view(const RecipeTable& t) {
  if (t.schema != kDynamoDecodeSchema)
    throw InputError(t.origin + ": schema", std::string("must be ") + kDynamoDecodeSchema + ", got '" + t.schema + "'");
  DynamoDecodeRecipes out;
  out.source = t.source;
  out.commit = t.commit;
  out.valid_from = t.valid_from;
  out.valid_to = t.valid_to;
  for (const Recipe& r : t.recipes) {
    DynamoDecodeRecipe k;
    k.path = r.recipe;
    k.commit = r.commit;
    k.source = r.source;
    k.valid_from = r.valid_from;
    k.valid_to = r.valid_to;
    k.gpu = r.gpu;
    k.precision = r.precision;
    k.isl = r.isl;
    k.osl = r.osl;
    k.prefill_workers = r.prefill.workers;
    k.prefill_gpus_per_worker = r.prefill.gpus_per_worker;
    k.decode_workers = r.decode.workers;
    k.decode_gpus_per_worker = r.decode.gpus_per_worker;
    k.decode_attention_dp = r.decode.attention_dp == 1;
    k.decode_max_batch_size = r.decode.max_batch;
    k.mtp_draft_tokens = r.mtp_draft_tokens;
    k.eplb_slots = r.decode.eplb_slots;
    k.scheduler_recv_interval = r.decode.scheduler_recv_interval;
    k.fp8_gemm_triton = r.decode.fp8_gemm_triton;
    k.concurrencies = r.concurrencies;
    out.recipes.push_back(std::move(k));
  }
  return out;
}

}  // namespace

DynamoDecodeRecipes parse_dynamo_decode_recipes(const std::string& text, const std::string& origin) {
  return decode_view(load_recipe_table(text, origin));
}

const DynamoDecodeRecipes& builtin_dynamo_decode_recipes() {
  static const DynamoDecodeRecipes recipes = decode_view(builtin_recipe_table("recipes/dynamo_trtllm_decode.yaml"));
  return recipes;
}

const DynamoDecodeRecipes& builtin_dynamo_sglang_decode_recipes() {
  static const DynamoDecodeRecipes recipes = decode_view(builtin_recipe_table("recipes/dynamo_sglang_decode.yaml"));
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
