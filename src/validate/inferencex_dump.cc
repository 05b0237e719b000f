#include "validate/inferencex_dump.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/text.h"
#include "inference/engine.h"
#include "inference/speculative.h"
#include "memory/inference_memory.h"
#include "recipe/recipe_dates.h"
#include "validate/inferencex_mtp.h"

namespace gpuplan {

namespace {

// The value of `key=` in the notes' provenance ("image=nvcr.io/nvidia/...; measured=2026-03-23T13:00:07Z"),
// up to the next ';', spaces trimmed; empty where the notes state none.
std::string notes_field(const std::string& notes, const std::string& key) {
  const auto at = notes.find(key + "=");
  if (at == std::string::npos) return {};
  const auto from = at + key.size() + 1, end = notes.find(';', from);
  return trim(std::string_view(notes).substr(from, end == std::string::npos ? std::string::npos : end - from));
}

// The run as InferenceX's sweep names it: its model, GPU ("h100" for H100-SXM), weights ("fp8" or "fp4"),
// lengths, clients and date (the engine is each lookup's); nullopt where the weights are neither or the
// client count is not a count.
std::optional<InferenceXRunQuery> sweep_run_query(const CsvTable& t, size_t i, const InferenceCase& c,
                                                  const std::string& notes) {
  const Precision wp = c.workload.weight_precision;
  if (wp != Precision::fp8 && wp != Precision::fp4 && wp != Precision::nvfp4) return std::nullopt;
  double clients = 0;
  if (!parse_cell_number(t.cell(i, "concurrency_or_batch"), clients) || clients < 1 || clients > 1e9)
    return std::nullopt;
  InferenceXRunQuery q;
  q.model = c.model.name;
  q.gpu = to_lower(c.gpu_name);
  if (const auto sxm = q.gpu.find("-sxm"); sxm != std::string::npos) q.gpu.erase(sxm);
  q.precision = wp == Precision::fp8 ? "fp8" : "fp4";
  q.isl = c.workload.isl;
  q.osl = c.workload.osl;
  q.concurrency = static_cast<long long>(clients);
  q.date = notes_measured_date(notes);
  q.push = inferencex_push_at(inferencex_sweep().pushes, notes_field(notes, "measured"));
  return q;
}

// MTP on a run of InferenceX's that its sweep entry pins, set as InferenceX's own rows of the engine
// set it (validate/inferencex_mtp.h): the draft tokens the entry's recipe name states, else the
// engine's rule; the engine entry's acceptance; SGLang's speculative host work where it runs in series.
void apply_sweep_mtp(const Catalog& catalog, const InferenceXMtpRun& run, const std::string& engine_entry,
                     int drafts_stated, const std::string& entry_words, InferenceCase& c) {
  if (!has_mtp_module(c.model)) {
    c.assumptions.push_back(fmt::format("{} ran MTP, but {} has no MTP module: drafting with another model is not "
                                        "modelled",
                                        entry_words, c.model.name));
    return;
  }
  InferenceWorkload& w = c.workload;
  InferenceXMtpDrafts d = inferencex_mtp_drafts(run);
  if (drafts_stated > 0) d = {drafts_stated, "the entry's recipe name"};
  w.mtp_draft_tokens = d.drafts;
  w.mtp_accept = engine_params(catalog, engine_entry).mtp_accept;
  c.spec_decode = "mtp";
  if (const std::string host = apply_inferencex_sglang_mtp_host(catalog, run, w); !host.empty())
    c.assumptions.push_back(host);
  c.assumptions.push_back(fmt::format("MTP ({}): {} draft tokens ({}), acceptance {} per draft (default; not recorded)",
                                      entry_words, w.mtp_draft_tokens, d.from, w.mtp_accept));
}

// AIConfigurator's dump writes some runs' pools (the December 2025 GB200 Dynamo deployments) as
// the deployment's GPU total: both pools "tp=T attn_dp=1 moe_tp=T moe_ep=1", T the prefill and decode
// workers' GPUs together (36 = 1 x 4 + 4 x 8), a TP no engine runs. Returns T where the notes say so and
// T is not a TP the model's heads allow; else 0.
int dump_total_gpus(const NotesDeployment& n, const ModelArch& m) {
  const auto total_form = [](const NotesPool& p, int t) {
    return p.tp == t && p.pp <= 1 && p.attn_dp == 1 && p.moe_tp == t && p.moe_ep <= 1;
  };
  const int t = n.prefill.tp;
  if (t <= 1 || !total_form(n.prefill, t) || !total_form(n.decode, t)) return 0;
  const auto ok = valid_inference_tp(m, t);
  return std::find(ok.begin(), ok.end(), t) == ok.end() ? t : 0;
}

}  // namespace

// The run's date its notes state ("measured=2026-03-23T13:00:07Z"), or empty.
std::string notes_measured_date(const std::string& notes) {
  const std::string measured = notes_field(notes, "measured");
  return measured.empty() ? std::string() : read_row_date(measured).value_or("");
}

// A disaggregated run of InferenceX's whose notes state the pools' widths but not the worker counts
// (AIConfigurator's CSV exports): the deployment InferenceX's sweep in force on its date lists for its
// model, GPU, weights, engine, lengths, widths and clients (validate/inferencex_sweep.h), if exactly one.
std::optional<std::string> inferencex_dump_deployment(const CsvTable& t, size_t i, const Catalog& catalog,
                                                      const SourceConvention& source, const InferenceCase& c,
                                                      const std::string& notes, const std::string& counts_blank,
                                                      NotesDeployment& n, const InferenceXSweepEntry*& entry,
                                                      std::vector<std::string>& assumptions) {
  entry = nullptr;
  if (!source.closed_loop_client || !source.closed_loop_client->inferencex_scripts) return counts_blank;
  const auto run = sweep_run_query(t, i, c, notes);
  if (!run) return counts_blank;
  InferenceXSweepQuery q;
  static_cast<InferenceXRunQuery&>(q) = *run;
  const std::string framework = source.closed_loop_client->disaggregated_engine_prefix + t.cell(i, "framework");
  q.engine = engine_params(catalog, framework).name;
  q.prefill_width = n.prefill.tp * n.prefill.attn_dp;
  q.decode_width = n.decode.tp * n.decode.attn_dp;
  const auto& table = inferencex_sweep().disaggregated;
  const int total = dump_total_gpus(n, c.model);
  if (total == 0 || !inferencex_sweep_deployments(table, q, builtin_recipe_bodies()).empty())
    return read_sweep_deployment(table, q, counts_blank, n, entry, assumptions, builtin_recipe_bodies());
  // No entry has the pools as written: read them as the deployment's total.
  InferenceXSweepQuery by_total = q;
  by_total.prefill_width = by_total.decode_width = 0;
  by_total.total_gpus = total;
  const std::string read_as = fmt::format(
      "both pools written tp {} attn_dp 1 moe_tp {} moe_ep 1, a TP that {}'s {} attention heads do not divide, read "
      "as the deployment's {} GPUs (AIConfigurator's dump writes the December 2025 GB200 runs' total so)",
      total, total, c.model.name, c.model.heads, total);
  std::vector<std::string> said;
  if (auto why_total = read_sweep_deployment(table, by_total, counts_blank + "; " + read_as, n, entry, said,
                                             builtin_recipe_bodies()))
    return why_total;
  assumptions.push_back(read_as);
  assumptions.insert(assumptions.end(), said.begin(), said.end());
  return std::nullopt;
}

// A run of InferenceX's whose notes say nothing of MTP (AIConfigurator's exports record none), as
// InferenceX's sweep ran it: a disaggregated run read from a sweep entry takes that entry's MTP; a
// single-node run the MTP of the entries in force on its date that ran its model, GPU, weights, engine,
// lengths, TP, clients and (where the notes name one) image, when they agree. Returns 1 (MTP set on the
// case), 0 (the entries ran it without: said) or -1 (not known: nothing set).
int inferencex_dump_mtp(const CsvTable& t, size_t i, const Catalog& catalog, const SourceConvention& source,
                        const std::string& notes, bool disagg, const InferenceXSweepEntry* sweep_entry,
                        InferenceCase& c) {
  const InferenceWorkload& w = c.workload;
  InferenceXMtpRun run;
  const std::string base = engine_params(catalog, t.cell(i, "framework")).name;
  run.framework = disagg ? "dynamo + " + base : base;
  run.generation = c.generation;
  run.model = c.model.name;
  run.weights = w.weight_precision;
  run.date = notes_measured_date(notes);
  run.disaggregated = disagg;
  run.attention_dp = c.parallel.attention_dp;
  if (disagg) {
    if (!sweep_entry) return -1;
    if (!sweep_entry->mtp) return 0;  // its deployment's assumption says "no MTP"
    apply_sweep_mtp(catalog, run, source.closed_loop_client->disaggregated_engine_prefix + t.cell(i, "framework"),
                    sweep_entry->mtp_draft_tokens, fmt::format("InferenceX's sweep entry {}", sweep_entry->name), c);
    return 1;
  }
  const auto key = sweep_run_query(t, i, c, notes);
  if (!key) return -1;
  InferenceXSingleNodeQuery q;
  static_cast<InferenceXRunQuery&>(q) = *key;
  q.engine = base;
  q.width = c.parallel.tp;
  q.image = notes_field(notes, "image");
  const InferenceXSingleNodeEntry* first = nullptr;
  const int mtp = inferencex_sweep_single_node_mtp(inferencex_sweep().single_node, q, &first);
  if (mtp < 0) return -1;
  const std::string words = fmt::format(
      "InferenceX's sweep entries in force on {} for the run's GPU, engine{}, lengths, TP {} and clients{}, as {} (from "
      "commit {})",
      q.date, q.image.empty() ? "" : ", image", q.width, inferencex_push_words(q.push, first->name), first->name, first->commit);
  if (mtp == 1) apply_sweep_mtp(catalog, run, t.cell(i, "framework"), 0, words, c);
  else c.assumptions.push_back(fmt::format("no MTP: {} ran it without", words));
  return mtp;
}

}  // namespace gpuplan
