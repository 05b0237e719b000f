#include "compare/recommend.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <set>

#include "compare/parallel.h"
#include "core/numbers.h"
#include "deploy/goodput.h"
#include "fabric/system_fabric.h"
#include "physics/compute.h"
#include "training/default_batch.h"

namespace gpuplan::compare {

const char* to_string(Task t) {
  switch (t) {
    case Task::train: return "train";
    case Task::finetune: return "finetune";
    case Task::infer: return "infer";
  }
  return "?";
}

std::string rank_basis(const RecommendSpec& spec) {
  if (spec.task == Task::infer) return "usd_per_hour";
  return spec.rank_by_rent ? "job_usd_rented" : "job_usd_owned";
}

std::string rank_basis_text(const RecommendSpec& spec) {
  if (spec.task == Task::infer)
    return "ranked by the cost per hour of serving the users (the whole units bought at their TCO per hour)";
  return spec.rank_by_rent
             ? "ranked by the job's cost rented: the GPUs it uses for its wall time at the system's rental price"
             : "ranked by the job's cost owned: the whole units bought, at their TCO per hour (capital recovery, "
               "power, colocation), for the job's wall time";
}

double rank_figure(const RecommendSpec& spec, const Recommendation& r) {
  if (spec.task == Task::infer) return r.priced ? r.usd : 0.0;
  return spec.rank_by_rent ? r.rent_usd : (r.priced ? r.usd : 0.0);
}

namespace {

// The GPUs that talk over the scale-up links, in words: an NVLink domain, or for a PCIe card (a scale-up
// domain of one) the host whose GPUs share its PCIe.
std::string domain_words(const Hardware& hw) {
  return hw.accelerator.max_scaleup_domain <= 1 ? fmt::format("{}-GPU PCIe host (no NVLink)", hw.fabric.domain_gpus)
                                                : fmt::format("{}-GPU scale-up domain", hw.fabric.domain_gpus);
}

struct Candidate {
  std::string name, display_name, accelerator;
  bool is_system = true;
  int unit = 1;       // GPUs per unit (bare accelerators: one card)
  int node = 1;       // GPUs per node (a failure's smallest blast radius)
  int pool = 8;       // serving: GPUs one sweep spreads an instance group over
  Hardware hw;
  cost::Tco tco;
};

std::string gb(double bytes) { return fmt::format("{:.0f} GB", bytes / 1e9); }

std::string human_count(double n) { return count_text(n, ""); }

std::string days(double s) {
  const double d = s / 86400.0;
  return d >= 1 ? fmt::format("{:.1f} days", d) : fmt::format("{:.1f} hours", s / 3600.0);
}

Precision supported_or_best(const Accelerator& a, Precision wanted) {
  if (a.peak(gemm_format(wanted)) > 0) return wanted;
  if (a.peak(MathFormat::fp8) > 0 && weight_bytes(wanted) <= 1.0) return Precision::fp8;
  return Precision::bf16;
}

void recommend_training(const ModelArch& m, const RecommendSpec& spec, const Candidate& c, Recommendation& r) {
  const Precision p = supported_or_best(c.hw.accelerator, spec.train_precision);
  if (p != spec.train_precision)
    r.reasons.push_back(fmt::format("{} has no {} tensor path: trains in {}", c.accelerator,
                                    to_string(spec.train_precision), to_string(p)));
  const double deadline_s = spec.deadline_days * 86400.0;
  const int cap = spec.gpus_available > 0 ? std::min(spec.gpus_available, spec.max_gpus) : spec.max_gpus;
  TrainingPick best;
  std::string last_why = fmt::format("needs more than {} GPUs", cap);
  // No GPU count below what the peak rate alone would need (6 x active parameters FLOPs per token at 100% of
  // peak) can meet the deadline: start the doubling just below it.
  const double peak = c.hw.accelerator.peak(gemm_format(p));
  // (LoRA / QLoRA: 4 x, the frozen weights' gradients are never computed.)
  const double flops_per_param = spec.finetune.is_full() ? 6.0 : 4.0;
  const double gpus_at_peak = peak > 0 ? spec.tokens * flops_per_param * active_params(m) / (peak * deadline_s) : 0.0;
  long long start = c.unit;
  while (double(start) * 2 <= gpus_at_peak && start * 2 <= cap) start *= 2;
  TrainingWorkload w;
  w.seq_len = spec.seq_len;
  w.global_batch = spec.global_batch;  // the job's batch does not grow with the GPUs bought
  w.precision = p;
  w.finetune = spec.finetune;
  // Every count searched but the one bought is read only for a plan that meets the deadline: the
  // searches ask for the rate it needs (a hair below, so rounding never drops a plan that meets it)
  // and skip the plans that cannot reach it. Should no count meet the deadline, the largest count with
  // a plan is the answer: the counts where no plan reached the rate are searched again whole, largest
  // first, down to the largest count that had one.
  const double least_tokens_per_s =
      deadline_s > 0 && spec.tokens > 0 ? spec.tokens / deadline_s * (1.0 - 1e-9) : 0.0;
  std::vector<long long> short_counts;
  LayerCostCache layer_costs;  // the counts' searches share the layers' costs
  long long why_at = 0;  // the count last_why speaks of
  bool met = false;
  for (long long g = start; g <= cap; g *= 2) {
    w.num_gpus = static_cast<int>(g);
    TrainingPick t = best_training(m, c.hw, w, least_tokens_per_s, &layer_costs);
    if (!t.found) {
      if (t.short_of_least) {
        short_counts.push_back(g);
      } else {
        last_why = t.why_not;
        why_at = g;
      }
      continue;
    }
    best = std::move(t);
    if (spec.tokens / best.result.tokens_per_s <= deadline_s) {
      // The smallest purchase: the doubling overshoots by up to 2x, so bisect the whole units between
      // the count that missed (or could not at peak rate) and this one.
      long long lo = (g / 2) / c.unit, hi = g / c.unit;
      while (hi - lo > 1) {
        const long long mid = (lo + hi) / 2;
        w.num_gpus = static_cast<int>(mid * c.unit);
        TrainingPick u = best_training(m, c.hw, w, least_tokens_per_s, &layer_costs);
        if (u.found && spec.tokens / u.result.tokens_per_s <= deadline_s) {
          best = std::move(u);
          hi = mid;
        } else {
          lo = mid;
        }
      }
      met = true;
      break;
    }
  }
  if (!met) {
    const long long found_at = best.found ? best.workload.num_gpus : 0;
    for (auto g = short_counts.rbegin(); g != short_counts.rend() && *g > found_at; ++g) {
      w.num_gpus = static_cast<int>(*g);
      TrainingPick t = best_training(m, c.hw, w, 0, &layer_costs);
      if (t.found) {
        best = std::move(t);
        break;
      }
      if (*g > why_at) {
        last_why = t.why_not;
        why_at = *g;
      }
    }
  }
  if (!best.found) {
    r.why_not = last_why;
    return;
  }
  const TrainingResult& res = best.result;
  r.gpus = best.workload.num_gpus;
  r.units = (r.gpus + c.unit - 1) / c.unit;
  r.plan = to_string(best.plan);
  r.tokens_per_s_per_gpu = res.tokens_per_s_per_gpu;
  r.mfu = res.mfu_6n;
  // Failures: the run under the Llama 3 failure rates, Daly-interval checkpoints and spare units, as
  // `gpuplan goodput` computes it; days, cost and energy are those of the failure-prone run.
  const deploy::GoodputResult good = deploy::training_run_goodput(
      {r.gpus, std::max(1, c.node), std::max(1, c.hw.fabric.domain_gpus), c.unit,
       best.plan.tp * best.plan.cp * best.plan.ep},
      total_params(m), res.tokens_per_s, spec.tokens);
  const double goodput = good.charged();
  const double effective_tokens_per_s = res.tokens_per_s * goodput;
  r.wall_s = spec.tokens / effective_tokens_per_s;
  const cost::RunCost rc = cost::run_cost(c.tco, r.units * c.unit, effective_tokens_per_s, spec.tokens);
  r.usd = rc.usd;
  r.usd_per_million_tokens = rc.per_token.usd_per_million_tokens;
  r.joules_per_token = rc.per_token.joules_per_token;
  r.energy_j = rc.facility_energy_j;
  // The job rented: the GPUs it uses for its wall time at the system's rental price.
  if (const auto it = spec.rent_usd_per_gpu_hour.find(c.name); c.is_system && it != spec.rent_usd_per_gpu_hour.end()) {
    r.rent_usd_per_gpu_hour = it->second;
    r.rent_usd = r.gpus * r.wall_s / 3600.0 * it->second;
  }
  r.feasible = r.wall_s <= deadline_s;
  if (!r.feasible)
    r.why_not = fmt::format("{} on {} GPUs, past the {:g}-day deadline", days(r.wall_s), r.gpus, spec.deadline_days);
  else
    r.reasons.push_back(fmt::format("{} GPUs finish {} tokens in {} ({:.0f} tokens/s per GPU, MFU {:.0f}%)", r.gpus,
                                    human_count(spec.tokens), days(r.wall_s), r.tokens_per_s_per_gpu, 100 * r.mfu));
  r.reasons.push_back(fmt::format("days include failures: {:.1f}% goodput ({:.1f} failures/day, checkpoints every {:.0f} "
                                  "min, restarts on spares; {})",
                                  100 * goodput, good.failures_per_hour * 24, good.daly_interval_s / 60,
                                  deploy::builtin_failure_model().source));
  const StepBreakdown& s = res.parts;
  const double comm = s.tp_comm_s + s.cp_comm_s + s.ep_comm_s + s.pp_comm_s + s.dp_comm_s;
  if (comm > 0.15 * res.step_time_s)
    r.reasons.push_back(fmt::format("exposed communication is {:.0f}% of the step", 100 * comm / res.step_time_s));
  if (s.bubble_s > 0.10 * res.step_time_s)
    r.reasons.push_back(fmt::format("pipeline bubble is {:.0f}% of the step", 100 * s.bubble_s / res.step_time_s));
  const int model_group = best.plan.tp * best.plan.ep * best.plan.cp;
  if (model_group > 8 && model_group <= c.hw.fabric.domain_gpus)
    r.reasons.push_back(fmt::format("its {}-GPU tensor/expert/context groups stay inside the {}", model_group,
                                    domain_words(c.hw)));
  else if (best.plan.tp * best.plan.cp <= c.hw.fabric.domain_gpus && best.plan.tp * best.plan.cp > 1 &&
           best.plan.pp == 1 && best.plan.ep == 1)
    r.reasons.push_back(fmt::format("tensor parallelism ({}) stays inside the {}", best.plan.tp * best.plan.cp,
                                    domain_words(c.hw)));
  // The budget bounds the job's cost on the ranking's basis (owned or rented).
  if (const double job = rank_figure(spec, r); spec.budget_usd > 0 && job > spec.budget_usd) {
    r.feasible = false;
    r.why_not = fmt::format("costs {}{}, over the {} budget", usd_text(job), spec.rank_by_rent ? " rented" : "",
                            usd_text(spec.budget_usd));
  }
}

void recommend_serving(const ModelArch& m, const RecommendSpec& spec, const Candidate& c, Recommendation& r) {
  // Serving keeps the weights' precision on a chip without its tensor path (weight-only: stored narrow,
  // the math wider), as infer, cost and size serve it.
  const Precision p = spec.infer_precision;
  if (const std::string note = serving_fallback_note(c.hw.accelerator, p); !note.empty()) r.reasons.push_back(note);
  // The operating-point chooser (inference/chooser.h), as infer, compare, cost and site ask it: the
  // deployment and units with the most throughput per GPU that give every user the speed within the TTFT limit.
  if (spec.fp8_context_attention)
    if (const std::string why = fp8_attention_refusal(c.hw.accelerator); !why.empty()) {
      r.why_not = "--context-attention fp8: " + why;  // as api/long_context_options.h words it for size
      return;
    }
  if (spec.kv_offload_host && !(c.hw.accelerator.host_link_bytes_per_s > 0)) {
    r.why_not = fmt::format("--kv-offload host: the catalog gives {} no host link to copy cached prefixes back over",
                            c.accelerator);
    return;
  }
  ServingScenario sc = serving_scenario(m, c.hw, c.pool, p, spec.isl, spec.osl, 0, spec.tpot_s, spec.ttft_s,
                                        spec.mtp_accept);
  sc.workload.prefix_hit_fraction = spec.prefix_hit;  // the long-prompt inputs, as infer reads them
  sc.workload.kv_offload_host = spec.kv_offload_host;
  sc.workload.fp8_context_attention = spec.fp8_context_attention;
  const ServingChoice ch = choose_serving(sc);
  if (!ch.met) {
    r.why_not = ch.why_not;
    return;
  }
  // The unit that is replicated for more users: one engine instance, or a whole disaggregated
  // deployment (its prefill and decode pools together); the users it serves at the target.
  struct Copies {
    int gpus_per_copy = 0;
    long long copies = 0;
    int gpus = 0, units = 0;
  };
  auto copies_of = [&](const SweepPoint& at) {
    Copies k;
    const InferenceResult& x = at.result;
    k.gpus_per_copy = at.disaggregated ? at.disagg.prefill_gpus + at.disagg.decode_gpus : x.gpus_per_instance;
    const double users_per_copy =
        std::max(1.0, at.disaggregated ? double(x.concurrency) : double(x.concurrency) / x.instances);
    k.copies = static_cast<long long>(std::ceil(static_cast<double>(spec.users) / users_per_copy));
    k.gpus = static_cast<int>(k.copies * k.gpus_per_copy);
    k.units = (k.gpus + c.unit - 1) / c.unit;
    return k;
  };
  // Of each size's best deployment (the chooser's by_size: more tokens/s per GPU the larger), the one
  // that serves the users on the fewest whole units: copies of a small deployment for few users, of the
  // most efficient one for many (on a tie the more efficient).
  const SweepPoint* pt = &ch.point;
  Copies k = copies_of(*pt);
  for (const SweepPoint& size_best : ch.by_size) {
    const Copies kp = copies_of(size_best);
    if (kp.units < k.units) pt = &size_best, k = kp;
  }
  const InferenceResult& res = pt->result;
  const int gpi = k.gpus_per_copy;
  r.gpus = k.gpus;
  r.units = k.units;
  r.disaggregated = pt->disaggregated;
  r.plan = pt->disaggregated || pt->mtp_draft_tokens > 0
               ? pt->kind() + ": " + pt->plan()
               : fmt::format("tp={} ep={} pp={}{}", pt->parallel.tp, pt->parallel.ep, pt->parallel.pp,
                             pt->parallel.attention_dp ? " attention-dp" : "");
  r.tokens_per_s_per_user = res.tokens_per_s_per_user;
  r.tokens_per_s_per_gpu = res.tokens_per_s_per_gpu;  // the deployment's, at the load the chooser solved
  r.ttft_s = res.ttft_s;
  // The users' output tokens/s: each user's share of the deployment's (a user's cycle is its TTFT and its
  // decode; the deployment's tokens/s over its users), as infer and cost count them.
  r.tokens_per_s = static_cast<double>(spec.users) * res.tokens_per_s_total /
                   static_cast<double>(std::max(1LL, res.concurrency));
  const double units_w = r.units * c.tco.facility_w_average;
  r.joules_per_token = units_w / r.tokens_per_s;
  if (c.tco.priced) {
    r.usd = r.units * c.tco.usd_per_unit_hour();
    r.usd_per_million_tokens = r.usd / (r.tokens_per_s * 3600.0) * 1e6;
  }
  r.feasible = true;
  r.reasons.push_back(fmt::format("{} per deployment copy of {} GPUs at {} users: {:.1f} tokens/s per user, TTFT "
                                  "{:.3g} s{}",
                                  pt->kind(), gpi, pt->disaggregated ? res.concurrency : res.concurrency / res.instances,
                                  res.tokens_per_s_per_user, res.ttft_s,
                                  ch.ttft_limit_s > 0 ? fmt::format(" (limit {:.3g} s)", ch.ttft_limit_s) : ""));
  const double weights = res.memory.weights_bytes;
  if (gpi == 1)
    r.reasons.push_back(fmt::format("the weights ({} at {}) and KV cache fit on one {} ({}): no tensor-parallel "
                                    "traffic", gb(weights), to_string(p), c.accelerator,
                                    gb(c.hw.accelerator.memory_bytes)));
  else if (gpi <= c.hw.fabric.domain_gpus)
    r.reasons.push_back(fmt::format("one copy spans {} GPUs ({} of weights each) inside the {}", gpi, gb(weights),
                                    domain_words(c.hw)));
  else
    r.reasons.push_back(fmt::format("one copy spans {} GPUs, more than the {}: its traffic crosses the scale-out network",
                                    gpi, domain_words(c.hw)));
  // Long prompts: what each user's KV cache takes, which bounds the users a copy holds.
  if (spec.isl + spec.osl >= 32768)
    r.reasons.push_back(fmt::format("each user's KV cache takes {:.2f} GB per GPU ({} tokens of context): a copy holds "
                                    "at most {} users",
                                    res.memory.kv_bytes_per_sequence / 1e9, spec.isl + spec.osl,
                                    pt->disaggregated ? res.max_concurrency : res.max_concurrency / res.instances));
  const StepTime& d = res.decode_step;
  const double hbm_s = (d.weight_bytes_read + d.kv_bytes_read) / c.hw.accelerator.memory_bandwidth_bytes_per_s;
  if (d.total_s > 0 && hbm_s > 0.5 * d.total_s)
    r.reasons.push_back(fmt::format("decode is memory-bandwidth bound ({:.1f} TB/s HBM sets the per-user speed)",
                                    c.hw.accelerator.memory_bandwidth_bytes_per_s / 1e12));
  if (r.units * c.unit >= 2 * r.gpus)
    r.reasons.push_back(fmt::format("the smallest purchase is {} x {} GPUs for {} GPUs of work ({:.0f}% used)",
                                    r.units, c.unit, r.gpus, 100.0 * r.gpus / (r.units * c.unit)));
  if (spec.budget_usd > 0 && c.tco.priced && r.usd * cost::kHoursPerYear > spec.budget_usd) {
    r.feasible = false;
    r.why_not = fmt::format("{} a year, over the {} budget", usd_text(r.usd * cost::kHoursPerYear),
                            usd_text(spec.budget_usd));
  }
}

}  // namespace

RecommendResult recommend(const Catalog& catalog, const ModelArch& m, RecommendSpec spec,
                          const cost::CostProfile& profile,
                          const std::function<void(std::size_t, std::size_t)>& progress) {
  const bool train = spec.task != Task::infer;
  if (train) {
    if (spec.tokens <= 0) spec.tokens = spec.task == Task::train ? 20.0 * total_params(m) : 1e9;
    if (spec.seq_len <= 0) spec.seq_len = spec.task == Task::train ? 8192 : 4096;
    if (spec.global_batch > 0) {
      spec.global_batch_basis = "stated (--global-batch)";
    } else if (spec.task == Task::train) {
      const DefaultBatch d = default_global_batch(m, spec.seq_len);
      spec.global_batch = d.sequences;
      spec.global_batch_basis = d.basis;
    } else {
      // Fine-tuning: 2^20 tokens a step (gpuplan's default for a fine-tuning job, not the model's
      // pre-training batch), as the power-of-two count of whole sequences nearest it.
      const double seqs = std::max(1.0, 1048576.0 / spec.seq_len);
      spec.global_batch = 1LL << static_cast<int>(std::round(std::log2(seqs)));
      spec.global_batch_basis = fmt::format(
          "fine-tuning default: 2^20 = 1,048,576 tokens a step as the nearest power-of-two count of {}-token "
          "sequences ({} sequences); --global-batch sets it",
          spec.seq_len, spec.global_batch);
    }
    spec.tokens_per_step = static_cast<double>(spec.global_batch) * spec.seq_len;
    if (spec.deadline_days <= 0) spec.deadline_days = spec.task == Task::train ? 90 : 2;
  }
  std::vector<Candidate> cands;
  std::set<std::string> in_systems;
  const std::set<std::string> wanted(spec.systems.begin(), spec.systems.end());
  for (const System& s : catalog.systems()) {
    in_systems.insert(s.accelerator);
    if (!wanted.empty() && !wanted.count(s.name)) continue;
    Candidate c;
    c.name = s.name;
    c.display_name = s.display_name;
    c.accelerator = s.accelerator;
    c.unit = s.gpus_per_unit();
    c.node = s.gpus_per_node;
    c.pool = c.unit;
    c.hw = resolve_hardware(catalog, s.name);
    fabric::shape_scaleout(catalog, s, c.hw.fabric, spec.fabric_oversubscription,
                           spec.fabric_rail_only ? fabric::Topology::rail_only : fabric::Topology::rail_optimized);
    c.tco = cost::compute_tco(cost::unit_cost_input(catalog, s), profile);
    cands.push_back(std::move(c));
  }
  for (const Accelerator& a : catalog.accelerators()) {
    if (in_systems.count(a.name) || (!wanted.empty() && !wanted.count(a.name))) continue;
    Candidate c;
    c.name = a.name;
    c.display_name = a.display_name;
    c.accelerator = a.name;
    c.is_system = false;
    c.unit = 1;
    c.pool = 8;
    c.hw = resolve_hardware(catalog, a.name);
    c.tco.system = a.name;
    c.tco.gpus_per_unit = 1;
    cands.push_back(std::move(c));
  }
  RecommendResult out;
  // Each candidate's answer is its own (the chooser or the plan search on its hardware): they run on
  // the machine's threads, in the catalog's order once done.
  out.ranked.resize(cands.size());
  std::mutex progress_mutex;
  std::size_t done = 0;
  std::vector<std::function<void()>> jobs;
  for (std::size_t i = 0; i < cands.size(); ++i) jobs.push_back([&, i] {
    const Candidate& c = cands[i];
    Recommendation& r = out.ranked[i];
    r.name = c.name;
    r.display_name = c.display_name;
    r.accelerator = c.accelerator;
    r.is_system = c.is_system;
    r.gpus_per_unit = c.unit;
    r.priced = c.tco.priced;
    r.price_basis = c.tco.price_basis;
    if (train) recommend_training(m, spec, c, r);
    else recommend_serving(m, spec, c, r);
    if (r.gpus > 0 && c.is_system) {
      // What is bought: whole units, their capital cost and the IT power provisioned for them.
      r.it_kw = r.units * c.tco.it_w_full / 1e3;
      if (c.tco.priced) r.capex_usd = r.units * c.tco.capex_usd();
    }
    if (r.gpus > 0 && spec.gpus_available > 0 && r.units * c.unit > spec.gpus_available) {
      r.feasible = false;
      r.why_not = fmt::format("needs {} GPUs, {} available", r.units * c.unit, spec.gpus_available);
    }
    const bool fitted = train ? !c.hw.efficiency.fitted_on.empty() : !c.hw.efficiency.infer_fitted_on.empty();
    r.calibrated = fitted;
    if (r.gpus > 0 && !fitted)
      r.reasons.push_back(fmt::format("the {} generation's efficiencies are defaults, not fitted on measurements: its "
                                      "speed is a rough estimate", c.hw.accelerator.generation));
    if (!c.is_system)
      r.reasons.push_back("no system in the catalog carries it: no price or host power, so no cost or energy");
    else if (!c.tco.priced)
      r.reasons.push_back("no price in the catalog or cost profile: not ranked by cost");
    else if (c.tco.price_basis == "estimate")
      r.reasons.push_back("its price is an estimate (data/cost/defaults.yaml)");
    if (progress) {
      const std::lock_guard<std::mutex> lock(progress_mutex);
      progress(++done, cands.size());
    }
  });
  run_parallel(jobs);
  // Feasible and priced by cost, then feasible unpriced by time (or GPUs), then the rest; within each,
  // generations never fitted on measurements after the fitted ones unless asked (spec.unfitted_last).
  // Cost (rank_basis): training and fine-tuning by the one-off job's cost, owned or rented; serving by the
  // cost per hour of meeting the users at the latency asked (the GPUs bought, whole units, at the TCO per
  // hour), the question a planner asks.
  auto tier = [&](const Recommendation& r) {
    const int base = !r.feasible ? 4 : rank_figure(spec, r) > 0 ? 0 : 2;
    return base + ((r.feasible && spec.unfitted_last && !r.calibrated) ? 1 : 0);
  };
  auto cost_key = [&](const Recommendation& r) { return rank_figure(spec, r); };
  std::stable_sort(out.ranked.begin(), out.ranked.end(), [&](const Recommendation& x, const Recommendation& y) {
    if (tier(x) != tier(y)) return tier(x) < tier(y);
    if (tier(x) <= 1) return cost_key(x) < cost_key(y);
    if (tier(x) <= 3) return train ? x.wall_s < y.wall_s : x.gpus < y.gpus;
    return false;
  });
  if (out.ranked.size() > 1 && tier(out.ranked[0]) == 0 && tier(out.ranked[1]) <= 1 && cost_key(out.ranked[1]) > 0) {
    const auto& r1 = out.ranked[1];
    const double saving = 1.0 - cost_key(out.ranked[0]) / cost_key(r1);
    out.ranked[0].reasons.insert(out.ranked[0].reasons.begin(),
                                 fmt::format("{:.0f}% cheaper {} than the runner-up, {}", 100 * saving,
                                             !train             ? "per hour of serving the users"
                                             : spec.rank_by_rent ? "for the job rented"
                                                                 : "for the job owned",
                                             r1.name));
  }
  out.spec = spec;
  return out;
}

}  // namespace gpuplan::compare
