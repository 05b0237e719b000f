#include "inference/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <numeric>

#include "core/error.h"
#include "inference/speculative.h"

namespace gpuplan {

namespace {

// Disaggregated deployments over `gpus` GPUs (see serving_deployments), appended to out. Decode
// workers from one node up to the NVLink domain, and beyond it over the scale-out network (EP across
// nodes) where the model needs more GPUs than one domain holds; prefill workers of 4 up to 32 GPUs.
void disaggregated_deployments(const ModelArch& m, const Hardware& hw, int gpus, int mtp,
                               std::vector<ServingDeployment>& out) {
  if (!m.is_moe() || gpus < 8) return;
  const int domain = std::max(8, hw.fabric.domain_gpus);
  struct Worker {
    int width;
    bool dep;  // attention-DP with EP = width; else TP = width with EP = width
  };
  std::vector<Worker> decodes;
  for (int wd = 8; wd <= gpus && wd <= std::max(domain, 64); wd *= 2) decodes.push_back({wd, true});
  decodes.push_back({8, false});
  for (const Worker& dw : decodes) {
    for (int pw : {4, 8, 16, 32}) {
      if (pw > gpus / 2) continue;
      for (int eighths : {1, 2, 3, 4}) {
        int pg = gpus * eighths / 8 / pw * pw;
        if (pg < pw) pg = pw;
        const int dg = (gpus - pg) / dw.width * dw.width;
        if (dg < dw.width) continue;
        if (m.moe.num_experts % pw || m.moe.num_experts % dw.width) continue;
        ServingDeployment d;
        d.disaggregated = true;
        d.disagg.prefill = {pw, pw, 1, true};
        d.disagg.prefill_gpus = pg;
        d.disagg.decode = {dw.width, dw.width, 1, dw.dep};
        d.disagg.decode.two_batch_overlap = dw.dep;
        d.disagg.decode_gpus = dg;
        d.parallel = d.disagg.decode;
        d.gpus = pg + dg;
        d.mtp_draft_tokens = mtp;
        out.push_back(d);
      }
    }
  }
}

// Aggregated engines over `gpus` GPUs (see serving_deployments), appended to out.
void aggregated_deployments(const ModelArch& m, int gpus, int max_pp, int mtp, int min_instance_gpus,
                            std::vector<ServingDeployment>& out) {
  for (int pp = 1; pp <= std::max(1, max_pp) && pp <= m.layers; pp *= 2) {
    if (gpus % pp) continue;
    for (int tp : valid_inference_tp(m, gpus / pp)) {
      if ((gpus / pp) % tp) continue;
      if (tp * pp < min_instance_gpus) continue;
      std::vector<int> eps{1};
      if (m.is_moe())
        for (int ep = 2; ep <= tp; ep *= 2)
          if (tp % ep == 0 && m.moe.num_experts % ep == 0) eps.push_back(ep);
      for (int ep : eps) {
        for (int adp = 0; adp <= (m.is_moe() && tp > 1 ? 1 : 0); ++adp) {
          ServingDeployment d;
          d.parallel = {tp, ep, pp, adp == 1};
          d.parallel.two_batch_overlap = adp == 1 && ep > 1;
          d.gpus = gpus;
          d.mtp_draft_tokens = mtp;
          out.push_back(d);
        }
      }
    }
  }
}

// One deployment's ends: its result at the most clients it holds (the highest throughput per GPU it
// reaches) and at the least load of its grid (the fastest per user, the lowest TTFT). Every point of its
// grid lies within them, so a point already found that is at least as good at both ends dominates them all.
struct Ends {
  ServingDeployment d;
  InferenceWorkload w;
  InferenceResult top, first;
  long long first_c = 0;
  // An aggregated deployment's evaluator (the parts of a point that do not depend on the load), made at
  // its first point.
  std::unique_ptr<const InferenceEvaluator> aggregated;
};

// The sweep's disaggregated pools, evaluated once for every pairing and load they serve in; an
// aggregated deployment's points, evaluate_inference's, on `serving_hw` (serving_hardware(hw), made once).
InferenceResult eval_at(const ModelArch& m, const Hardware& hw, const Hardware& serving_hw, Ends& e, long long c,
                        DisaggregatedPools& pools) {
  InferenceWorkload w = e.w;
  w.concurrency = c;
  if (e.d.disaggregated) return evaluate_disaggregated(m, hw, e.d.disagg, w, &pools);
  if (!e.aggregated) e.aggregated = std::make_unique<const InferenceEvaluator>(m, serving_hw, e.d.parallel, w);
  return e.aggregated->evaluate(c);
}

bool within(const SweepOptions& opts, const InferenceResult& r) {
  return r.valid() && !(opts.ttft_limit_s > 0 && r.ttft_s > opts.ttft_limit_s) &&
         !(opts.tpot_limit_s > 0 && r.tpot_s > opts.tpot_limit_s);
}

// The grid of `e` (see sweep_inference), its first point already evaluated, appended to pts.
void sweep_grid(const ModelArch& m, const Hardware& hw, const Hardware& serving_hw, Ends& e,
                const SweepOptions& opts, SweepResult& res, std::vector<SweepPoint>& pts, DisaggregatedPools& pools) {
  const long long top_c = e.top.max_concurrency;
  bool first = true;
  if (e.d.disaggregated) {
    for (long long c = e.first_c; c <= top_c; c *= 2) {
      InferenceResult r = first ? std::move(e.first) : eval_at(m, hw, serving_hw, e, c, pools);
      if (!first) ++res.evaluated;
      first = false;
      if (!within(opts, r)) continue;
      const bool saturated = r.prefill_utilization >= 0.98;
      pts.push_back(SweepPoint::of(e.d, c, std::move(r)));
      if (saturated) break;  // more clients only queue for the prefill pool
    }
    return;
  }
  for (double c = double(e.first_c); c <= double(top_c) * 1.0001; c *= 1.5) {
    const long long ci = std::min(top_c, static_cast<long long>(c));
    InferenceResult r = first ? std::move(e.first) : eval_at(m, hw, serving_hw, e, ci, pools);
    if (!first) ++res.evaluated;
    first = false;
    if (!within(opts, r)) continue;
    pts.push_back(SweepPoint::of(e.d, ci, std::move(r)));
  }
}

}  // namespace

std::string SweepPoint::kind() const { return deployment().kind(); }

std::string SweepPoint::plan() const { return deployment().plan(); }

ServingDeployment SweepPoint::deployment() const {
  ServingDeployment d;
  d.disaggregated = disaggregated;
  d.parallel = parallel;
  d.disagg = disagg;
  d.mtp_draft_tokens = mtp_draft_tokens;
  d.gpus = disaggregated ? disagg.prefill_gpus + disagg.decode_gpus : result.instances * result.gpus_per_instance;
  return d;
}

SweepPoint SweepPoint::of(const ServingDeployment& d, long long concurrency, InferenceResult r) {
  SweepPoint p;
  p.parallel = d.parallel;
  p.concurrency = concurrency;
  p.result = std::move(r);
  p.disaggregated = d.disaggregated;
  if (d.disaggregated) p.disagg = d.disagg;
  p.mtp_draft_tokens = d.mtp_draft_tokens;
  return p;
}

std::vector<ServingDeployment> serving_deployments(const ModelArch& m, const Hardware& hw, int gpus,
                                                   const SweepOptions& opts, int mtp_draft_tokens,
                                                   int min_instance_gpus) {
  std::vector<ServingDeployment> out;
  if (opts.disaggregated) disaggregated_deployments(m, hw, gpus, mtp_draft_tokens, out);
  aggregated_deployments(m, gpus, opts.max_pp, mtp_draft_tokens, min_instance_gpus, out);
  return out;
}

std::vector<int> sweep_mtp_drafts(const ModelArch& m, const InferenceWorkload& w, const SweepOptions& opts) {
  std::vector<int> mtps{w.mtp_draft_tokens};
  if (opts.mtp && w.mtp_draft_tokens == 0 && has_mtp_module(m)) mtps.push_back(kMtpDraftTokensDefault);
  if (opts.mtp && w.mtp_draft_tokens > 0) mtps.push_back(0);
  return mtps;
}

std::vector<size_t> pareto_front(const std::vector<std::pair<double, double>>& pts) {
  std::vector<size_t> idx(pts.size());
  std::iota(idx.begin(), idx.end(), 0);
  // Sort by per-user speed descending (ties: throughput descending); keep a point when its
  // throughput beats every faster point's.
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    return pts[a].second != pts[b].second ? pts[a].second > pts[b].second : pts[a].first > pts[b].first;
  });
  std::vector<size_t> out;
  double best = -1;
  for (size_t i : idx) {
    if (pts[i].first > best) {
      out.push_back(i);
      best = pts[i].first;
    }
  }
  std::reverse(out.begin(), out.end());
  return out;
}

SweepResult sweep_inference(const ModelArch& m, const Hardware& hw, const InferenceWorkload& w0,
                            const SweepOptions& opts) {
  SweepResult res;
  const int gpus = w0.num_gpus > 0 ? w0.num_gpus : 1;
  std::vector<SweepPoint> pts;
  std::vector<Ends> ends;
  DisaggregatedPools pools{false};  // this sweep's alone (one thread)
  const Hardware serving_hw = serving_hardware(hw);
  for (int k : sweep_mtp_drafts(m, w0, opts)) {
    InferenceWorkload wk = w0;
    wk.mtp_draft_tokens = k;
    wk.concurrency = 0;
    for (const ServingDeployment& d : serving_deployments(m, hw, gpus, opts, k)) {
      Ends e{d, wk, {}, {}, 0, nullptr};
      if (!d.disaggregated) e.w.num_gpus = d.gpus;
      try {
        e.top = eval_at(m, hw, serving_hw, e, 0, pools);
      } catch (const InputError&) {
        continue;  // a degree the model's shapes do not allow
      }
      ++res.evaluated;
      if (e.top.max_concurrency < 1) continue;
      // The grid's first load: one sequence per decode worker, or per instance (attention-DP rank).
      e.first_c = d.disaggregated ? std::max(1, d.disagg.decode_gpus / d.disagg.decode.tp)
                                  : static_cast<long long>(e.top.instances) * (d.parallel.attention_dp ? d.parallel.tp : 1);
      if (d.disaggregated ? e.first_c > e.top.max_concurrency
                          : double(e.first_c) > double(e.top.max_concurrency) * 1.0001)
        continue;
      e.first = eval_at(m, hw, serving_hw, e, std::min(e.first_c, e.top.max_concurrency), pools);
      ++res.evaluated;
      ends.push_back(std::move(e));
    }
  }
  // The deployments of most throughput first; one whose ends a point already found matches or beats
  // (at least its throughput at the most clients and its per-user speed at the least load) adds nothing
  // to the frontier and its grid is not run.
  std::stable_sort(ends.begin(), ends.end(), [](const Ends& a, const Ends& b) {
    return a.top.tokens_per_s_per_gpu > b.top.tokens_per_s_per_gpu;
  });
  for (Ends& e : ends) {
    const double top_gpu = e.top.tokens_per_s_per_gpu, first_user = e.first.tokens_per_s_per_user;
    const bool dominated = std::any_of(pts.begin(), pts.end(), [&](const SweepPoint& p) {
      return p.result.tokens_per_s_per_gpu > top_gpu && p.result.tokens_per_s_per_user > first_user;
    });
    if (!dominated) sweep_grid(m, hw, serving_hw, e, opts, res, pts, pools);
  }
  res.feasible = pts.size();
  std::vector<std::pair<double, double>> xy;
  xy.reserve(pts.size());
  for (const auto& p : pts) xy.emplace_back(p.result.tokens_per_s_per_gpu, p.result.tokens_per_s_per_user);
  for (size_t i : pareto_front(xy)) res.frontier.push_back(pts[i]);
  std::sort(res.frontier.begin(), res.frontier.end(), [](const SweepPoint& a, const SweepPoint& b) {
    return a.result.tokens_per_s_per_user < b.result.tokens_per_s_per_user;
  });
  return res;
}

}  // namespace gpuplan
