#include "compare/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <tuple>
#include <cctype>
#include <numeric>

#include "compare/long_context.h"
#include "compare/parallel.h"
#include "physics/compute.h"
#include "training/default_batch.h"

namespace gpuplan::compare {

const char* to_string(Per p) {
  switch (p) {
    case Per::gpu: return "gpu";
    case Per::system: return "system";
    case Per::usd: return "usd";
    case Per::watt: return "watt";
  }
  return "gpu";
}

const char* per_unit_suffix(Per p) {
  switch (p) {
    case Per::gpu: return "per GPU";
    case Per::system: return "per system";
    case Per::usd: return "per $/h of TCO";
    case Per::watt: return "per kW";
  }
  return "per GPU";
}

SystemSide make_side(const Catalog& catalog, const std::string& system, const cost::CostProfile& profile) {
  const System& s = catalog.system(system, "system");
  SystemSide side;
  side.system = s.name;
  side.display_name = s.display_name;
  side.accelerator = s.accelerator;
  side.gpus_per_unit = s.gpus_per_unit();
  side.hw = resolve_hardware(catalog, s.name);
  side.tco = cost::compute_tco(cost::unit_cost_input(catalog, s), profile);
  return side;
}

double Yardstick::value(Per per, const SystemSide& side, bool side_a) const {
  const double v = side_a ? a : b;
  if (!scalable || std::isnan(v)) return v;
  switch (per) {
    case Per::gpu: return v;
    case Per::system: return v * side.gpus_per_unit;
    case Per::usd: return side.tco.priced ? v / side.tco.usd_per_gpu_hour() : NAN;
    case Per::watt: return side.tco.it_w_full_per_gpu() > 0 ? v / (side.tco.it_w_full_per_gpu() / 1e3) : NAN;
  }
  return v;
}

double Yardstick::ratio(Per per, const SystemSide& A, const SystemSide& B) const {
  const double va = value(per, A, true), vb = value(per, B, false);
  if (std::isnan(va) || std::isnan(vb) || vb == 0) return NAN;
  return va / vb;
}

Precision best_inference_precision(const Accelerator& a) {
  if (a.peak(MathFormat::fp4) > 0) return Precision::nvfp4;
  if (a.peak(MathFormat::fp8) > 0) return Precision::fp8;
  return Precision::bf16;
}

namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool supports(const Accelerator& a, Precision p) { return a.peak(gemm_format(p)) > 0; }

// A side's serving curve on the fewest of its units that hold the model, and the operating-point
// chooser's point at the interactivity (the units the best deployment needs).
struct SideServing {
  ServingCurve curve;
  int gpus = 0;
  std::optional<SweepPoint> at;
  int at_gpus = 0;
  ServingChoice choice;
  // With `grid`: the chooser's answer at each interactivity of the spec's curve grid, and at any speed
  // per user (the most throughput within the TTFT limit): the curve rows and the maximum-throughput
  // yardstick are the same solve as the figure at the stated interactivity.
  std::vector<ServingChoice> grid;
  ServingChoice offline;
};
SideServing side_serving(const ModelArch& m, const SystemSide& S, const CompareSpec& spec, Precision p,
                         bool grid = false) {
  SideServing out;
  InferenceWorkload w = serving_workload(p, spec.isl, spec.osl, S.gpus_per_unit, spec.mtp_accept);
  w.prefix_hit_fraction = spec.prefix_hit;  // the long-prompt inputs, as in the chooser's scenarios
  w.kv_offload_host = spec.kv_offload_host;
  w.fp8_context_attention = spec.fp8_context_attention;
  const SweepOptions so = serving_sweep(m, resolve_ttft_limit_s(spec.ttft_limit_s, spec.isl), spec.tpot_limit_s);
  const auto curve = [&] {
    ScaledCurve fit = serving_curve_scaled(m, S.hw, w, S.gpus_per_unit, 0, so);
    out.gpus = fit.gpus;
    out.curve = std::move(fit.curve);
  };
  // One question at several targets: the operating points evaluated are shared.
  ServingEvalCache cache;
  ChooserOptions co;
  co.cache = &cache;
  const auto choose_at = [&](double tokens_per_s_per_user, double tpot_limit_s) {
    return choose_serving(spec_serving_scenario(m, S, spec, p, spec.isl, tokens_per_s_per_user, tpot_limit_s), co);
  };
  const auto stated = [&] {
    out.choice = choose_at(spec.tokens_per_s_per_user, spec.tpot_limit_s);
    if (out.choice.met) {
      out.at = out.choice.point;
      out.at_gpus = out.choice.gpus;
    }
  };
  if (!grid) {
    run_parallel({curve, stated});
    return out;
  }
  // The questions are independent (the shared points are pure functions of the deployment and load):
  // they run on the machine's threads, each answer the same as asked alone. The curve runs beside the
  // stated target's question; the other targets follow that one, whose points they mostly reuse.
  out.grid.resize(spec.curve_grid.size());
  const auto targets = [&] {
    stated();
    std::vector<std::function<void()>> jobs;
    for (std::size_t i = 0; i < spec.curve_grid.size(); ++i) {
      const double x = spec.curve_grid[i];
      if (x == spec.tokens_per_s_per_user) out.grid[i] = out.choice;
      else jobs.push_back([&, i, x] { out.grid[i] = choose_at(x, spec.tpot_limit_s); });
    }
    jobs.push_back([&] { out.offline = choose_at(0, 0); });
    run_parallel(jobs);
  };
  run_parallel({targets, curve});
  return out;
}

void add(std::vector<Yardstick>& ys, Yardstick y) { ys.push_back(std::move(y)); }

}  // namespace

Comparison compare_systems(const SystemSide& A, const SystemSide& B, const std::vector<ModelArch>& models,
                           const CompareSpec& spec) {
  Comparison c{A, B, spec, {}, {}};
  auto& ys = c.yardsticks;
  const Accelerator& aa = A.hw.accelerator;
  const Accelerator& ab = B.hw.accelerator;

  // Peak rates, each format, then each side's best format against the other's.
  for (MathFormat f : {MathFormat::bf16, MathFormat::fp8, MathFormat::fp4}) {
    const double pa = aa.peak(f), pb = ab.peak(f);
    if (pa == 0 && pb == 0) continue;
    add(ys, {"peak", fmt::format("peak_{}", to_string(f)), fmt::format("{} dense peak", upper(to_string(f))),
             "TFLOP/s", pa > 0 ? pa / 1e12 : NAN, pb > 0 ? pb / 1e12 : NAN, true, true,
             f == MathFormat::fp8 ? "datasheet 'PFLOPS' headlines (often with sparsity: halve them)" : "", ""});
  }
  {
    const Precision pa = best_inference_precision(aa), pb = best_inference_precision(ab);
    add(ys, {"peak", "peak_best_format", "Peak, each at its best format", "TFLOP/s",
             aa.peak(gemm_format(pa)) / 1e12, ab.peak(gemm_format(pb)) / 1e12, true, true,
             "vendors' 'x more AI compute' (FP4 against FP8)",
             fmt::format("{} vs {}", upper(to_string(pa)), upper(to_string(pb)))});
  }
  add(ys, {"memory", "hbm_capacity", "Memory capacity", "GB", aa.memory_bytes / 1e9, ab.memory_bytes / 1e9, true,
           true, "", ""});
  add(ys, {"memory", "hbm_bandwidth", "Memory bandwidth", "TB/s", aa.memory_bandwidth_bytes_per_s / 1e12,
           ab.memory_bandwidth_bytes_per_s / 1e12, true, true, "bounds decode (tokens/s per user)", ""});
  add(ys, {"fabric", "scaleup_domain", "Scale-up (NVLink) domain", "GPUs", double(A.hw.fabric.domain_gpus),
           double(B.hw.fabric.domain_gpus), false, true, "'one giant GPU' rack claims", ""});
  add(ys, {"fabric", "scaleup_bandwidth", "Scale-up bandwidth, one direction", "GB/s",
           A.hw.fabric.scaleup_bytes_per_s / 1e9, B.hw.fabric.scaleup_bytes_per_s / 1e9, true, true,
           "", "vendors often quote both directions (2x)"});
  add(ys, {"fabric", "scaleout_bandwidth", "Scale-out bandwidth, one direction", "GB/s",
           A.hw.fabric.scaleout_bytes_per_s / 1e9, B.hw.fabric.scaleout_bytes_per_s / 1e9, true, true, "", ""});
  add(ys, {"cost", "it_power", "IT power at full load, with network/storage share", "kW",
           A.tco.it_w_full_per_gpu() / 1e3, B.tco.it_w_full_per_gpu() / 1e3, false, false, "", ""});
  add(ys, {"cost", "capex", "Capital cost (all-in)", "k$", A.tco.priced ? A.tco.capex_per_gpu_usd() / 1e3 : NAN,
           B.tco.priced ? B.tco.capex_per_gpu_usd() / 1e3 : NAN, false, false, "",
           fmt::format("{} / {} price", A.tco.price_basis.empty() ? "no" : A.tco.price_basis,
                       B.tco.price_basis.empty() ? "no" : B.tco.price_basis)});
  add(ys, {"cost", "tco", "TCO per GPU-hour", "$", A.tco.priced ? A.tco.usd_per_gpu_hour() : NAN,
           B.tco.priced ? B.tco.usd_per_gpu_hour() : NAN, false, false, "", ""});

  // Training: the same job on the same GPU count, the best plan on each.
  TrainingWorkload train_job;
  if (spec.train) {
    const int unit = std::lcm(A.gpus_per_unit, B.gpus_per_unit);
    train_job.num_gpus = spec.train_gpus > 0 ? spec.train_gpus : unit * std::max(1, (512 + unit - 1) / unit);
    train_job.seq_len = spec.seq_len;
    train_job.precision = spec.train_precision;
  }

  // The plan searches and the serving questions of every model and both sides are independent: they
  // run on the machine's threads together (no model waits for the previous one's slowest), each answer
  // the same as asked alone.
  const Precision common = spec.infer_precision;
  struct Answers {
    ModelComparison mc;
    SideServing sa, sb, ba, bb;
    TrainingWorkload tw;
  };
  std::vector<Answers> answers(models.size());
  {
    // The longest questions first (a serving side with its curve grid, then a side at one target, then the
    // plan searches), so that the last to finish is a short one.
    std::vector<std::function<void()>> grids, sides, searches;
    for (std::size_t mi = 0; mi < models.size(); ++mi) {
      const ModelArch& m = models[mi];
      Answers& x = answers[mi];
      x.mc.model = m.name;
      x.tw = train_job;
      if (spec.infer) {
        x.mc.best_precision_a = best_inference_precision(aa);
        x.mc.best_precision_b = best_inference_precision(ab);
      }
      if (spec.train) {
        // The model's default batch (training/default_batch.h) unless one is given: the same on both sides.
        x.tw.global_batch =
            spec.global_batch > 0 ? spec.global_batch : default_global_batch(m, x.tw.seq_len).sequences;
        searches.push_back([&x, &m, &A] { x.mc.train_a = best_training(m, A.hw, x.tw); });
        searches.push_back([&x, &m, &B] { x.mc.train_b = best_training(m, B.hw, x.tw); });
      }
      if (spec.infer) {
        // A side without tensor cores for the common precision has no figure in it; its best-format rows
        // serve it in the format it has, and the curve says why it has none here.
        if (supports(aa, common))
          grids.push_back([&x, &m, &A, &spec, common] { x.sa = side_serving(m, A, spec, common, true); });
        else
          x.sa.choice.why_not = unsupported_precision(aa, common);
        if (supports(ab, common))
          grids.push_back([&x, &m, &B, &spec, common] { x.sb = side_serving(m, B, spec, common, true); });
        else
          x.sb.choice.why_not = unsupported_precision(ab, common);
        if (x.mc.best_precision_a != common)
          sides.push_back([&x, &m, &A, &spec] { x.ba = side_serving(m, A, spec, x.mc.best_precision_a); });
        if (x.mc.best_precision_b != common)
          sides.push_back([&x, &m, &B, &spec] { x.bb = side_serving(m, B, spec, x.mc.best_precision_b); });
      }
    }
    std::vector<std::function<void()>> jobs = std::move(grids);
    for (auto* more : {&sides, &searches}) jobs.insert(jobs.end(), more->begin(), more->end());
    run_parallel(jobs);
  }

  for (std::size_t mi = 0; mi < models.size(); ++mi) {
    const ModelArch& m = models[mi];
    ModelComparison& mc = answers[mi].mc;
    const SideServing& sa = answers[mi].sa;
    const SideServing& sb = answers[mi].sb;
    SideServing& ba = answers[mi].ba;
    SideServing& bb = answers[mi].bb;
    const TrainingWorkload& tw = answers[mi].tw;
    if (mc.best_precision_a == common) ba = sa;
    if (mc.best_precision_b == common) bb = sb;
    if (spec.train) {
      const auto tps = [](const TrainingPick& p) { return p.found ? p.result.tokens_per_s_per_gpu : NAN; };
      if (mc.train_a.found) mc.train_cost_a = cost::token_cost(A.tco, 1, mc.train_a.result.tokens_per_s_per_gpu);
      if (mc.train_b.found) mc.train_cost_b = cost::token_cost(B.tco, 1, mc.train_b.result.tokens_per_s_per_gpu);
      const std::string cond = fmt::format("{} GPUs each, {} x {} tokens per step, {}", tw.num_gpus, tw.global_batch,
                                           tw.seq_len, upper(to_string(tw.precision)));
      add(ys, {"training", "train_tokens_per_s:" + m.name, fmt::format("{} training tokens/s", m.name), "tokens/s",
               tps(mc.train_a), tps(mc.train_b), true, true, "vendors' 'x faster training'", cond});
      add(ys, {"training", "train_mfu:" + m.name, fmt::format("{} training MFU", m.name), "%",
               mc.train_a.found ? 100 * mc.train_a.result.mfu_6n : NAN,
               mc.train_b.found ? 100 * mc.train_b.result.mfu_6n : NAN, false, true, "", "6N FLOPs over BF16-or-format peak"});
      add(ys, {"training", "train_usd_per_mtok:" + m.name, fmt::format("{} training $/M tokens", m.name),
               "$", A.tco.priced && mc.train_a.found ? mc.train_cost_a.usd_per_million_tokens : NAN,
               B.tco.priced && mc.train_b.found ? mc.train_cost_b.usd_per_million_tokens : NAN, false, false, "", ""});
      add(ys, {"training", "train_j_per_token:" + m.name, fmt::format("{} training J/token", m.name), "J",
               mc.train_a.found ? mc.train_cost_a.joules_per_token : NAN,
               mc.train_b.found ? mc.train_cost_b.joules_per_token : NAN, false, false, "", "facility energy (x PUE)"});
    }
    if (spec.infer) {
      mc.infer_precision_common = common;
      mc.ttft_limit_s = resolve_ttft_limit_s(spec.ttft_limit_s, spec.isl);
      mc.curve_a = sa.curve, mc.gpus_a = sa.gpus, mc.at_a = sa.at, mc.at_gpus_a = sa.at_gpus, mc.choice_a = sa.choice;
      mc.curve_b = sb.curve, mc.gpus_b = sb.gpus, mc.at_b = sb.at, mc.at_gpus_b = sb.at_gpus, mc.choice_b = sb.choice;
      mc.best_curve_a = ba.curve, mc.best_gpus_a = ba.gpus, mc.best_at_a = ba.at;
      mc.best_curve_b = bb.curve, mc.best_gpus_b = bb.gpus, mc.best_at_b = bb.at;
      // Each row is the chooser's answer at its interactivity (as infer, cost and recommend give it).
      for (std::size_t i = 0; i < spec.curve_grid.size(); ++i) {
        CurveRow row{spec.curve_grid[i], NAN, NAN, NAN, NAN, {}, {}};
        for (auto [side, v, t, k, g] : {std::tuple{&sa, &row.a, &row.ttft_a, &row.kind_a, &row.gpus_a},
                                        std::tuple{&sb, &row.b, &row.ttft_b, &row.kind_b, &row.gpus_b}}) {
          if (i >= side->grid.size() || !side->grid[i].met) continue;
          const ServingChoice& ch = side->grid[i];
          *v = ch.point.result.tokens_per_s_per_gpu;
          *t = ch.point.result.ttft_s;
          *k = ch.point.kind();
          *g = ch.gpus;
        }
        mc.curve.push_back(row);
      }
      const double x = spec.tokens_per_s_per_user;
      const auto at = [](const std::optional<SweepPoint>& p) { return p ? p->result.tokens_per_s_per_gpu : NAN; };
      const auto ttft_text = [](const std::optional<SweepPoint>& p) {
        return p ? fmt::format("{:.3g} s", p->result.ttft_s) : std::string("-");
      };
      const std::string io = fmt::format("ISL/OSL {}/{}", spec.isl, spec.osl);
      // Where a side needs more than one unit, the condition says on how many GPUs.
      const auto on = [](int gpus, int unit) { return gpus > unit ? fmt::format("{} GPUs", gpus) : "one unit"; };
      add(ys, {"inference", "infer_at_interactivity:" + m.name,
               fmt::format("{} serving, {:g} tok/s/user", m.name, x), "tokens/s", at(mc.at_a),
               at(mc.at_b), true, true, "",
               fmt::format("{}, {} both, TTFT A {}, B {} ({}); on the units the best deployment needs: A {}, B {}",
                           io, upper(to_string(common)), ttft_text(mc.at_a), ttft_text(mc.at_b),
                           mc.ttft_limit_s > 0 ? fmt::format("limit {:.3g} s", mc.ttft_limit_s) : "no limit",
                           on(mc.at_a ? mc.at_gpus_a : mc.gpus_a, A.gpus_per_unit),
                           on(mc.at_b ? mc.at_gpus_b : mc.gpus_b, B.gpus_per_unit))});
      add(ys, {"inference", "infer_best_format:" + m.name,
               fmt::format("{} serving, {:g} tok/s/user, best formats", m.name, x),
               "tokens/s", at(mc.best_at_a), at(mc.best_at_b), true, true,
               "vendors' inference 'x' (FP4 against FP8)",
               fmt::format("{}, {} vs {}, TTFT A {}, B {}", io, upper(to_string(mc.best_precision_a)),
                           upper(to_string(mc.best_precision_b)), ttft_text(mc.best_at_a), ttft_text(mc.best_at_b))});
      const auto curve_ttft = [](const SweepPoint* p) {
        return p ? fmt::format("{:.3g} s", p->result.ttft_s) : std::string("-");
      };
      const std::string limit_text =
          mc.ttft_limit_s > 0 ? fmt::format("TTFT within {:.3g} s", mc.ttft_limit_s) : std::string("no TTFT limit");
      // The most throughput at any speed per user within the TTFT limit: the chooser's answer without a
      // per-user target.
      const auto offline = [](const SideServing& sd) {
        return sd.offline.met ? sd.offline.point.result.tokens_per_s_per_gpu : NAN;
      };
      const auto offline_ttft = [](const SideServing& sd) {
        return sd.offline.met ? fmt::format("{:.3g} s on {} GPUs", sd.offline.point.result.ttft_s, sd.offline.gpus)
                              : std::string("-");
      };
      add(ys, {"inference", "infer_max_throughput:" + m.name, fmt::format("{} serving, maximum throughput", m.name),
               "tokens/s", offline(sa), offline(sb), true, true, "offline / max-throughput charts",
               fmt::format("{}, {} both, any speed per user, {}: TTFT A {}, B {}", io, upper(to_string(common)),
                           limit_text, offline_ttft(sa), offline_ttft(sb))});
      const auto fastest = [](const ServingCurve& cv) {
        const SweepPoint* p = max_interactivity(cv);
        return p ? p->result.tokens_per_s_per_user : NAN;
      };
      add(ys, {"inference", "infer_max_interactivity:" + m.name, fmt::format("{} serving, fastest per user", m.name),
               "tokens/s/user", fastest(mc.curve_a), fastest(mc.curve_b), false, true, "'user responsiveness' claims",
               fmt::format("{}, {} both, {}: TTFT A {}, B {}", io, upper(to_string(common)), limit_text,
                           curve_ttft(max_interactivity(mc.curve_a)), curve_ttft(max_interactivity(mc.curve_b)))});
      const auto cost_at = [](const std::optional<SweepPoint>& p, const cost::Tco& t, bool usd) {
        if (!p || (usd && !t.priced)) return double(NAN);
        const cost::TokenCost tc = cost::token_cost(t, 1, p->result.tokens_per_s_per_gpu);
        return usd ? tc.usd_per_million_tokens : tc.joules_per_token;
      };
      add(ys, {"inference", "infer_usd_per_mtok:" + m.name,
               fmt::format("{} serving $/M tokens, {:g} tok/s/user", m.name, x), "$",
               cost_at(mc.at_a, A.tco, true), cost_at(mc.at_b, B.tco, true), false, false, "",
               fmt::format("{}, TTFT A {}, B {}", upper(to_string(common)), ttft_text(mc.at_a), ttft_text(mc.at_b))});
      add(ys, {"inference", "infer_j_per_token:" + m.name,
               fmt::format("{} serving J/token, {:g} tok/s/user", m.name, x), "J",
               cost_at(mc.at_a, A.tco, false), cost_at(mc.at_b, B.tco, false), false, false, "",
               fmt::format("facility energy (x PUE), TTFT A {}, B {}", ttft_text(mc.at_a), ttft_text(mc.at_b))});
    }
    add_long_context(m, A, B, spec, tw.num_gpus, mc, ys);  // nothing unless spec.long_context_tokens
    c.models.push_back(std::move(mc));
  }
  return c;
}

}  // namespace gpuplan::compare
