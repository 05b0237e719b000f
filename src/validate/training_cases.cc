#include "validate/training_cases.h"

#include "validate/validation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>
#include <tuple>
#include <utility>

#include "core/csv.h"
#include "core/error.h"
#include "core/suggest.h"
#include "core/text.h"
#include "model/model_registry.h"
#include "training/expert_overlap.h"
#include "training/framework_release.h"
#include "training/moe_dispatcher.h"
#include "validate/attention_kernel_text.h"
#include "validate/blank_plan.h"
#include "validate/metric_name.h"
#include "validate/precision_text.h"
#include "validate/row_consistency.h"
#include "validate/zero_spelling.h"

namespace gpuplan {

namespace {

// The year the row's run is dated: its `date` (or `year`) column where the table has one ("2024-06",
// "2024", "Apr 2024"), else the publication year in its source id ("NARAYANAN-2021-T1" -> 2021); 0 when neither
// states one. Container tags ("NEMO-24.07") are not years.
int row_year(const CsvTable& t, size_t i) {
  static const std::regex year(R"((19|20)\d\d)");
  std::smatch m;
  for (const char* col : {"date", "year"}) {
    if (t.column(col) < 0) continue;
    const std::string cell = t.cell(i, col);
    if (std::regex_search(cell, m, year)) return std::stoi(m.str());
  }
  const std::string id = t.cell(i, "source_id");
  if (std::regex_search(id, m, year)) return std::stoi(m.str());
  return 0;
}

// The dimensions the row's columns state, each within the bounds every model input has (a value out
// of them skips the row naming the column).
ModelDims row_dims(const CsvTable& t, size_t i) {
  ModelDims d;
  for (auto [col, key] : {std::pair<const char*, const char*>{"layers", "layers"}, {"hidden", "hidden"},
                          {"heads", "heads"}, {"vocab", "vocab"}, {"ffn_hidden", "ffn_hidden"},
                          {"moe_experts", "experts"}, {"moe_topk", "topk"}, {"kv_heads", "kv_heads"}}) {
    double v = 0;
    if (!parse_cell_number(t.cell(i, col), v)) continue;
    try {
      set_model_dim(d, key, v, "");
    } catch (const InputError& e) {  // the same message, naming the column
      const std::string what = e.what();
      throw InputError(col, what.substr(std::min(what.size(), e.field().size() + 2)));
    }
  }
  return d;
}

}  // namespace

bool is_training_schema(const CsvTable& t) {
  return t.column("reported_metric") >= 0 && t.column("tp") >= 0 && t.column("gbs") >= 0;
}

std::vector<TrainingCase> map_training_cases(const CsvTable& t, const Catalog& catalog,
                                             std::vector<SkippedRow>& skipped) {
  std::vector<TrainingCase> out;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    TrainingCase c;
    c.row = i;
    c.source_id = t.cell(i, "source_id");
    c.model_name = t.cell(i, "model");
    c.gpu_name = t.cell(i, "gpu");
    c.metric = canonical_metric_name(t.cell(i, "reported_metric"));
    c.precision_name = t.cell(i, "precision");
    const std::string notes = t.cell(i, "notes");
    const std::string notes_l = to_lower(notes);
    auto skip = [&](std::string why) { skipped.push_back({i, std::move(why)}); };
    if (!parse_cell_number(t.cell(i, "reported_value"), c.reported) || c.reported <= 0) {
      skip("reported_value is blank or not a positive number");
      continue;
    }
    if (c.metric != "step_time_s" && c.metric != "tokens_per_sec_per_gpu" && c.metric != "tflops_per_gpu" &&
        c.metric != "mfu") {
      skip(fmt::format("unknown reported_metric '{}' (step_time_s, tokens_per_sec_per_gpu, tflops_per_gpu or mfu)",
                       echo_name(t.cell(i, "reported_metric"))));
      continue;
    }
    if (auto why = resolve_row_hardware(catalog, c, notes)) {
      skip(*why);
      continue;
    }
    const PrecisionReading prec = read_gemm_precision(c.precision_name);
    if (!prec.precision) {
      skip(prec.note);
      continue;
    }
    c.workload.precision = *prec.precision;
    if (normalize_name(c.precision_name) != to_string(*prec.precision)) c.assumptions.push_back(prec.note);
    try {
      // The built-in model of that name when one matches (for what the columns cannot say: MLA, shared
      // experts, gating, sliding windows), with every dimension the row gives taking precedence.
      c.dims = row_dims(t, i);
      // The name as written first (a built-in name or alias, "GPT-18.4B (Narayanan Table 1)"), then
      // without its parenthesised remark ("GPT-22B (Korthikanti)").
      std::string base = c.model_name;
      if (auto p = base.find(" ("); p != std::string::npos) base = base.substr(0, p);
      bool builtin = false;
      std::vector<std::string> dim_notes;
      c.model = model_with_dims(c.model_name, c.model_name, c.dims, dim_notes, &builtin);
      c.model_lookup = c.model_name;
      if (!builtin && base != c.model_name) {
        dim_notes.clear();
        c.model = model_with_dims(base, c.model_name, c.dims, dim_notes, &builtin);
        c.model_lookup = base;
      }
      if (!builtin) c.model_lookup.clear();
      c.assumptions.insert(c.assumptions.end(), dim_notes.begin(), dim_notes.end());
    } catch (const InputError& e) {
      skip(e.what());
      continue;
    }
    c.family = c.model.family;
    if (c.model.layers <= 0 || c.model.hidden <= 0 || c.model.heads <= 0 || c.model.vocab <= 0) {
      skip("model dimensions (layers, hidden, heads, vocab) missing and no built-in model matches");
      continue;
    }
    double v = 0;
    const std::string& gpus_cell = t.cell(i, "num_gpus");
    const std::string gpus_lower = to_lower(gpus_cell);
    // Tables write a blank as nothing, "-", "n/a", "?" or "not stated"; anything else is the count.
    const bool gpus_blank = gpus_cell.find_first_not_of(" \t") == std::string::npos || gpus_lower == "-" ||
                            gpus_lower == "n/a" || gpus_lower == "na" || gpus_lower == "?" ||
                            gpus_lower == "not stated" || gpus_lower == "none";
    if (!gpus_blank && (!parse_cell_number(gpus_cell, v) || v < 1 || v != std::floor(v) || v > 1e7)) {
      skip(fmt::format("num_gpus '{}' is not a whole number >= 1", echo_name(gpus_cell)));
      continue;
    }
    if (gpus_blank) {
      // Derivable from a fully stated grid: tp x pp x cp x dp (cp blank = 1).
      double tp = 0, pp = 0, cp = 1, dp = 0;
      const bool grid = parse_cell_number(t.cell(i, "tp"), tp) && parse_cell_number(t.cell(i, "pp"), pp) &&
                        parse_cell_number(t.cell(i, "dp"), dp) && (t.cell(i, "cp").empty() || parse_cell_number(t.cell(i, "cp"), cp));
      if (!grid || tp < 1 || pp < 1 || cp < 1 || dp < 1 || tp * pp * cp * dp > 1e7) {
        skip("num_gpus blank and not derivable (needs tp, pp and dp stated)");
        continue;
      }
      v = tp * pp * cp * dp;
      c.assumptions.push_back(fmt::format("num_gpus blank: tp x pp x cp x dp = {:.0f}", v));
    }
    c.workload.num_gpus = static_cast<int>(v);
    if (!parse_token_count_cell(t.cell(i, "seq_len"), v) || v < 1) {
      const std::string& cell = t.cell(i, "seq_len");
      skip(cell.empty() ? std::string("seq_len blank")
                        : fmt::format("seq_len '{}' is not a token count (a number >= 1, or 8k for 8192)", echo_name(cell)));
      continue;
    }
    c.workload.seq_len = static_cast<int>(v);
    if (!parse_cell_number(t.cell(i, "gbs"), v)) {
      skip("gbs blank");
      continue;
    }
    c.workload.global_batch = static_cast<long long>(v);

    TrainingPlan& p = c.plan;
    BlankFields blanks;
    auto stated = [&](const char* col, int& field, bool& blank) {
      const std::string s = t.cell(i, col);
      const std::string sl = to_lower(s);
      double x = 0;
      // Tables write a blank as nothing, "-", "n/a", "?" or "not stated".
      blank = s.empty() || sl == "-" || sl == "n/a" || sl == "na" || sl == "?" || sl == "not stated" || sl == "none";
      if (blank) field = 1;
      else if (!parse_cell_number(s, x) || x < 1 || x != std::floor(x) || x > 1e6) return std::string(col);
      else field = static_cast<int>(x);
      return std::string();
    };
    std::string bad;
    for (auto [col, field, blank] : {std::tuple<const char*, int*, bool*>{"tp", &p.tp, &blanks.tp},
                                     {"pp", &p.pp, &blanks.pp}, {"vp", &p.vp, &blanks.vp},
                                     {"cp", &p.cp, &blanks.cp}, {"ep", &p.ep, &blanks.ep},
                                     {"mbs", &p.mbs, &blanks.mbs}})
      if (bad.empty()) bad = stated(col, *field, *blank);
    if (!bad.empty()) {
      skip(fmt::format("{} '{}' is not a whole number >= 1", bad, t.cell(i, bad)));
      continue;
    }
    {
      int dp = 0;
      bool blank = false;
      if (!stated("dp", dp, blank).empty()) {
        skip(fmt::format("dp '{}' is not a whole number >= 1", t.cell(i, "dp")));
        continue;
      }
      if (!blank) blanks.stated_dp = dp;
    }
    // Blanks that only one value fits are not searched: vp without a pipeline, ep of a dense model.
    if (blanks.vp && !blanks.pp && p.pp == 1) blanks.vp = false;
    if (blanks.ep && !c.model.is_moe()) blanks.ep = false;
    p.dp = 0;
    static const std::regex etp_re(R"(ETP\s*=\s*(\d{1,6}))");  // longer: not an ETP (stoi would throw)
    std::smatch em;
    if (std::regex_search(notes, em, etp_re)) {
      const int etp = std::stoi(em[1].str());
      if (!c.model.is_moe() && etp != 1) {  // expert tensor parallelism splits experts: a dense model has none
        skip(fmt::format("the notes state ETP={}, but {} is a dense model (expert tensor parallelism needs experts)",
                         etp, c.model.name));
        continue;
      }
      p.etp = etp;
    }
    std::string rc = to_lower(t.cell(i, "recompute"));
    // A blank recompute means the authors' own memory setting, usually their best: searched like the
    // other blank fields, the fastest plan that fits among no recompute, selective and full recompute
    // of the fewest layers, and activation offload of the fewest layers where the GPU has a host link
    // (the recipes' choice on Grace-Blackwell: docs/training-model.md, "Blank plan fields").
    blanks.recompute = rc.empty();
    // A blank cell whose notes state the setting ("full activation recomputation used", a FLOP count
    // that "includes the recompute forward") is stated: the row says what ran.
    std::string rc_notes;
    for (const char* s : {"full activation recompute", "includes recompute forward", "includes the activation-recompute"})
      if (notes_l.find(s) != std::string::npos) rc_notes = "full";
    if (notes_l.find("selective recompute") != std::string::npos) rc_notes = "selective";
    if (blanks.recompute && !rc_notes.empty()) {
      rc = rc_notes;
      blanks.recompute = false;
      c.assumptions.push_back(fmt::format("recompute blank: {} recompute, as the notes state", rc_notes));
    }
    // The recompute cell as sources spell it: Megatron's full / selective (with "+SP"), torchtitan's selective
    // activation checkpointing by op or by layer, or a yes/no for activation checkpointing.
    bool recompute_half_layers = false;
    const std::string rc_word = trim(rc);
    if (rc.find("full") != std::string::npos) {
      p.recompute = Recompute::full;
    } else if (rc.find("selective") != std::string::npos &&
               (rc.find("(op") != std::string::npos || rc.find("(layer") != std::string::npos ||
                rc.find("per-op") != std::string::npos || rc.find("per-layer") != std::string::npos)) {
      // torchtitan's selective activation checkpointing recomputes about half the forward matmuls: by op it
      // saves every second matmul's output (and attention's) and recomputes the rest, by layer it
      // checkpoints every second block whole (selective_ac_option "2"). Either is full recompute of half the
      // layers in time, not Megatron's attention-only selective recompute.
      p.recompute = Recompute::full;
      recompute_half_layers = true;
      c.assumptions.push_back(fmt::format("recompute '{}': torchtitan's selective activation checkpointing, about "
                                          "half the forward matmuls recomputed: full recompute of half the layers",
                                          rc_word));
    } else if (rc.find("selective") != std::string::npos) {
      p.recompute = Recompute::selective;
    } else if (rc.find("module") != std::string::npos) {
      p.recompute = Recompute::modules;  // Megatron's --recompute-modules (the cheap modules: plan.h)
    } else if (rc_word.empty() || rc_word == "none" || rc_word == "no" || rc_word == "false" || rc_word == "off" ||
               rc_word == "0" || rc_word == "disabled") {
      p.recompute = Recompute::none;
    } else if (rc_word == "yes" || rc_word == "true" || rc_word == "on" || rc_word == "1" || rc_word == "enabled" ||
               rc_word == "activation checkpointing" || rc_word == "checkpointing") {
      // Activation checkpointing with no granularity (Hugging Face, Composer/FSDP, DeepSpeed): every block
      // wrapped whole.
      p.recompute = Recompute::full;
      c.assumptions.push_back(fmt::format("recompute '{}': activation checkpointing of every block (full recompute)",
                                          rc_word));
    } else {
      skip(fmt::format("recompute '{}' is not a setting gpuplan reads (full, selective, selective (op|layer), modules, "
                       "none, yes/no)",
                       echo_name(t.cell(i, "recompute"))));
      continue;
    }
    // The framework release the row ran, from its date (training/framework_release.h): what that
    // release lacks (sequence parallelism, the distributed optimizer, TP overlap) the plan lacks too.
    // A source id's container tag (MBRIDGE-26.04.01, NEMO-24.07, DGXC-v25.05.04) dates it to the month.
    FrameworkRelease release = framework_release(kNewestFrameworkRelease);
    const std::optional<ContainerVersion> tag = release_tag_of_source(c.source_id);
    if (const int year = row_year(t, i); year > 0) {
      c.framework_release = std::clamp(year, kOldestFrameworkRelease, kNewestFrameworkRelease);
      if (c.framework_release != year)
        c.assumptions.push_back(fmt::format("dated {}: the framework release of {}", year, c.framework_release));
      release = framework_release(c.framework_release);
    } else if (tag && tag->full_year() >= kOldestFrameworkRelease && tag->full_year() <= kNewestFrameworkRelease) {
      release = framework_release(*tag);
      c.framework_release = release.year;
      c.framework_container = to_string(*tag);
    }
    p.sequence_parallel = p.tp > 1 && notes_l.find("no sequence parallelism") == std::string::npos;
    p = with_release_limits(p, release);
    if (rc.find("sp") != std::string::npos) p.sequence_parallel = p.tp > 1;
    // TP communication overlap as the notes state it: "TP communication not overlapped" / "vanilla TP" runs
    // the collectives in series with the GEMMs; "async TP" / "TP comm overlap" overlaps them.
    static const std::regex tp_serial(R"(\bvanilla tp\b|\btp comm\w* (is )?not overlapped|\bno tp (comm\w* )?overlap)");
    static const std::regex tp_overlapped(
        R"(\basync(hronous)? tp\b|\basync(hronous)? tensor parallel|\btp comm\w* overlap(ped)?\b)");
    if (std::regex_search(notes_l, tp_serial)) {
      p.tp_comm_overlap = false;
      c.assumptions.push_back("TP communication not overlapped, as the notes state");
    } else if (std::regex_search(notes_l, tp_overlapped) && !p.tp_comm_overlap) {
      p.tp_comm_overlap = true;
      c.assumptions.push_back("TP communication overlapped, as the notes state");
    }
    blanks.sequence_parallel_available = release.sequence_parallel;
    const bool hopper = c.hardware.accelerator.generation == "hopper";
    // The attention kernel as the notes name it, stated on Hopper, the one generation whose rate it moves
    // (FlashAttention-2 is the Ampere and Ada generations' fitted kernel class; elsewhere it has no rate).
    if (const AttentionKernelReading kernel = read_attention_kernel(notes);
        hopper && kernel.kernel != AttentionKernel::release) {
      c.attention_kernel = kernel.kernel;
      c.assumptions.push_back(fmt::format("attention kernel '{}' in the notes: {}", kernel.spelling,
                                          kernel.kernel == AttentionKernel::flash_attention_2
                                              ? "FlashAttention-2, the Ampere-design kernel, at its rate on Hopper"
                                              : "the Hopper-native kernels"));
    }
    const bool release_kernel = hopper && c.attention_kernel == AttentionKernel::release;
    if (const std::string note = release_note(release, c.model.is_moe(), release_kernel); !note.empty())
      c.assumptions.push_back(note);
    c.hardware = with_release_kernels(std::move(c.hardware), release, catalog, c.attention_kernel);
    // Sharding as the notes spell it (validate/zero_spelling.h).
    if (const ZeroReading z = read_zero_spelling(notes); z.stage >= 0) {
      p.zero = z.stage;
      if (z.stage >= 1) p.distributed_optimizer = true;
      else p.distributed_optimizer = false;
      c.assumptions.push_back(z.note);
    }
    // The expert all-to-all (training/expert_overlap.h): as the recipe of the row's NeMo container sets it
    // for this model, GPU and precision where a recipe table covers them, else as the release has it.
    const std::optional<ContainerVersion> container = nemo_container_of_source(c.source_id);
    auto overlap_for = [&](const TrainingPlan& q) {
      return expert_a2a_overlap_for_row(c.model, q, release, container, c.model_name, c.accelerator, c.workload.precision);
    };
    if (c.model.is_moe() && p.ep > 1) p.ep_overlap = overlap_for(p).overlap;
    // The MoE token dispatcher (plan.h MoeDispatcher): as the recipe of the row's NeMo container runs it,
    // where the table covers the model, GPU and precision; else the plan's default.
    const std::optional<MoeDispatcherReading> dispatcher =
        c.model.is_moe() && container
            ? recipe_moe_dispatcher(c.model_name, c.accelerator, to_string(c.workload.precision), *container)
            : std::nullopt;
    if (dispatcher) p.dispatcher = dispatcher->dispatcher;
    if (c.model.is_moe()) {
      TrainingPlan split = p;  // any plan with EP > 1: the row's rule turns on that alone
      split.ep = std::max(2, p.ep);
      blanks.ep_overlap = overlap_for(split).overlap;
    }
    if (blanks.any()) {
      BlankFill fill = fill_blank_plan(c.model, c.hardware, c.workload, p, blanks);
      if (!fill.found && blanks.stated_dp > 0) {
        // The row's dp may count differently (e.g. with EP folded in); the GPU count decides.
        c.assumptions.push_back(fmt::format("dp {} fits no plan with the stated fields: derived from num_gpus instead",
                                            blanks.stated_dp));
        blanks.stated_dp = 0;
        fill = fill_blank_plan(c.model, c.hardware, c.workload, p, blanks);
      }
      if (!fill.found) {
        skip("plan does not fit the model: " + fill.note);
        continue;
      }
      p = fill.plan;
      if (c.model.is_moe() && p.ep > 1) p.ep_overlap = overlap_for(p).overlap;
      if (dispatcher) p.dispatcher = dispatcher->dispatcher;
      c.assumptions.push_back(fill.note);
    }
    if (recompute_half_layers) {
      const int chunk_layers = c.model.layers / std::max(1, p.pp * std::max(1, p.vp));
      p.recompute_layers = std::max(1, chunk_layers / 2);
    }
    if (c.model.is_moe() && p.ep > 1) {
      c.ep_overlap = p.ep_overlap ? 1 : 0;
      c.assumptions.push_back(overlap_for(p).why);
    }
    if (dispatcher) c.assumptions.push_back(dispatcher->why);
    TrainingPlan check = p;
    auto violations = check_plan(c.model, check, c.workload);
    if (!violations.empty()) {
      skip("plan does not fit the model: " + violations.front().message);
      continue;
    }
    if (blanks.stated_dp > 0 && check.dp != blanks.stated_dp)
      c.assumptions.push_back(fmt::format("dp {} disagrees with num_gpus / (tp x pp x cp) = {}: the GPU count decides",
                                          blanks.stated_dp, check.dp));
    // TFLOP/s as the source counts them (shared/data README, "FLOP conventions"): Narayanan et al.
    // 2021 count with their Eq. 3, recompute included.
    if (c.source_id.rfind("NARAYANAN", 0) == 0) c.flop_convention = FlopConvention::narayanan_2021;
    // MosaicML (llm-foundry's MPT flops_per_batch: 6 x parameters + n_layers x 2 x 2 x d_model x seq^2 forward,
    // x3) and torchtitan (num_flop_per_token: 6 x non-embedding parameters + 12 l h q t, "do not account for
    // sparsity in causal attention") count attention unmasked; their MFU and TFLOP/s are read so.
    {
      const std::string where = to_lower(c.source_id + " " + t.cell(i, "source_url_or_path"));
      for (const char* s : {"mosaicml", "llm-foundry", "torchtitan"})
        if (where.find(s) != std::string::npos) c.flop_convention = FlopConvention::noncausal_attention;
      if (c.flop_convention == FlopConvention::noncausal_attention && (c.metric == "mfu" || c.metric == "tflops_per_gpu"))
        c.assumptions.push_back("FLOPs as the source counts them: attention unmasked (every query against the whole "
                                "sequence), twice the causal count");
    }
    c.mfu_basis = t.cell(i, "mfu_basis");
    if (c.metric == "mfu" && c.reported <= 1.0) {
      // MFU is in percent; a value of at most 1 is a fraction (no training run reaches only 1% MFU).
      c.reported *= 100.0;
      c.assumptions.push_back("mfu at most 1: read as a fraction, x100 to percent");
    }
    if (c.metric == "mfu") {
      if (c.mfu_basis.empty()) {
        c.assumptions.push_back("mfu_basis blank: MFU against the BF16 dense peak");
      } else if (c.mfu_basis != "precision_peak" && c.mfu_basis != "bf16_peak") {
        skip(fmt::format("mfu_basis '{}' is not precision_peak or bf16_peak", c.mfu_basis));
        continue;
      }
    }
    if (auto why = training_row_contradiction(c, notes)) {
      skip(*why);
      continue;
    }
    out.push_back(std::move(c));
  }
  return out;
}

double metric_from_result(const TrainingCase& c, const TrainingResult& r) {
  if (c.metric == "step_time_s") return r.step_time_s;
  if (c.metric == "tokens_per_sec_per_gpu") return r.tokens_per_s_per_gpu;
  if (c.metric == "tflops_per_gpu") return tflops_per_gpu(c.flop_convention, c.model, c.workload, r);
  // mfu in percent against the peak the row's mfu_basis names (shared/data README): the precision's
  // own dense peak, or the BF16 dense peak (also when the column is blank).
  const bool own_peak = c.mfu_basis == "precision_peak";
  if (c.flop_convention == FlopConvention::noncausal_attention)
    return 100.0 * (own_peak ? r.mfu_noncausal : r.mfu_noncausal_bf16);
  return 100.0 * (own_peak ? r.mfu_attn : r.mfu_attn_bf16);
}

double predict_case(const TrainingCase& c) {
  TrainingOptions opts;
  opts.with_memory = false;  // published rows ran; only their time is scored
  const TrainingResult r = evaluate_training(c.model, c.hardware, c.plan, c.workload, opts);
  if (!r.valid()) return 0.0;
  return metric_from_result(c, r);
}

}  // namespace gpuplan
