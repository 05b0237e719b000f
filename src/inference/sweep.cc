#include "inference/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/error.h"
#include "inference/speculative.h"

namespace gpuplan {

namespace {

std::string parallel_text(const InferenceParallel& p) {
  return fmt::format("tp={} ep={} pp={}{}", p.tp, p.ep, p.pp, p.attention_dp ? " attention-dp" : "");
}

// Disaggregated deployments over `gpus` GPUs (see sweep_inference), appended to pts.
void sweep_disaggregated(const ModelArch& m, const Hardware& hw, const InferenceWorkload& w0, int gpus,
                         const SweepOptions& opts, SweepResult& res, std::vector<SweepPoint>& pts) {
  if (!m.is_moe() || gpus < 8) return;
  const int domain = std::max(8, hw.fabric.domain_gpus);
  struct Worker {
    int width;
    bool dep;  // attention-DP with EP = width; else TP = width with EP = width
  };
  // Decode workers from one node up to the NVLink domain, and beyond it over the scale-out network
  // (EP across nodes) where the model needs more GPUs than one domain holds; prefill workers of 4 up
  // to 32 GPUs.
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
        DisaggregatedDeployment d;
        d.prefill = {pw, pw, 1, true};
        d.prefill_gpus = pg;
        d.decode = {dw.width, dw.width, 1, dw.dep};
        d.decode.two_batch_overlap = dw.dep;
        d.decode_gpus = dg;
        if (m.moe.num_experts % pw || m.moe.num_experts % dw.width) continue;
        InferenceWorkload w = w0;
        w.concurrency = 0;
        InferenceResult top;
        try {
          top = evaluate_disaggregated(m, hw, d, w);
        } catch (const InputError&) {
          continue;
        }
        ++res.evaluated;
        if (top.max_concurrency < 1) continue;
        for (long long c = std::max(1, dg / dw.width); c <= top.max_concurrency; c *= 2) {
          w.concurrency = c;
          InferenceResult r = evaluate_disaggregated(m, hw, d, w);
          ++res.evaluated;
          if (!r.valid()) continue;
          if (opts.ttft_limit_s > 0 && r.ttft_s > opts.ttft_limit_s) continue;
          if (opts.tpot_limit_s > 0 && r.tpot_s > opts.tpot_limit_s) continue;
          SweepPoint p;
          p.parallel = d.decode;
          p.concurrency = c;
          p.result = std::move(r);
          p.disaggregated = true;
          p.disagg = d;
          p.mtp_draft_tokens = w.mtp_draft_tokens;
          const bool saturated = p.result.prefill_utilization >= 0.98;
          pts.push_back(std::move(p));
          if (saturated) break;  // more clients only queue for the prefill pool
        }
      }
    }
  }
}

// Aggregated engines over `gpus` GPUs (see sweep_inference), appended to pts.
void sweep_aggregated(const ModelArch& m, const Hardware& hw, const InferenceWorkload& w0, int gpus,
                      const SweepOptions& opts, SweepResult& res, std::vector<SweepPoint>& pts) {
  for (int pp = 1; pp <= std::max(1, opts.max_pp) && pp <= m.layers; pp *= 2) {
    if (gpus % pp) continue;
    for (int tp : valid_inference_tp(m, gpus / pp)) {
      if ((gpus / pp) % tp) continue;
      std::vector<int> eps{1};
      if (m.is_moe())
        for (int ep = 2; ep <= tp; ep *= 2)
          if (tp % ep == 0 && m.moe.num_experts % ep == 0) eps.push_back(ep);
      for (int ep : eps) {
        for (int adp = 0; adp <= (m.is_moe() && tp > 1 ? 1 : 0); ++adp) {
          InferenceParallel par{tp, ep, pp, adp == 1};
          par.two_batch_overlap = adp == 1 && ep > 1;
          InferenceWorkload w = w0;
          w.num_gpus = gpus;
          w.concurrency = 0;
          InferenceResult top;
          try {
            top = evaluate_inference(m, hw, par, w);
          } catch (const InputError&) {
            continue;  // a degree the model's shapes do not allow
          }
          ++res.evaluated;
          if (top.max_concurrency < 1) continue;
          const long long step0 = top.instances * (adp ? tp : 1);
          for (double c = double(step0); c <= double(top.max_concurrency) * 1.0001; c *= 1.5) {
            w.concurrency = std::min(top.max_concurrency, static_cast<long long>(c));
            InferenceResult r = evaluate_inference(m, hw, par, w);
            ++res.evaluated;
            if (!r.valid()) continue;
            if (opts.ttft_limit_s > 0 && r.ttft_s > opts.ttft_limit_s) continue;
            if (opts.tpot_limit_s > 0 && r.tpot_s > opts.tpot_limit_s) continue;
            SweepPoint p;
            p.parallel = par;
            p.concurrency = w.concurrency;
            p.result = std::move(r);
            p.mtp_draft_tokens = w.mtp_draft_tokens;
            pts.push_back(std::move(p));
          }
        }
      }
    }
  }
}

}  // namespace

std::string SweepPoint::kind() const {
  return std::string(disaggregated ? "disaggregated" : "aggregated") + (mtp_draft_tokens > 0 ? " + MTP" : "");
}

std::string SweepPoint::plan() const {
  std::string s = disaggregated ? fmt::format("prefill {}x({}) + decode {}x({})", disagg.prefill_gpus / disagg.prefill.tp,
                                              parallel_text(disagg.prefill), disagg.decode_gpus / disagg.decode.tp,
                                              parallel_text(disagg.decode))
                                : parallel_text(parallel);
  if (mtp_draft_tokens > 0) s += fmt::format(" mtp={}", mtp_draft_tokens);
  return s;
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
  std::vector<int> mtps{w0.mtp_draft_tokens};
  if (opts.mtp && w0.mtp_draft_tokens == 0 && has_mtp_module(m)) mtps.push_back(kMtpDraftTokensDefault);
  if (opts.mtp && w0.mtp_draft_tokens > 0) mtps.push_back(0);
  for (int k : mtps) {
    InferenceWorkload wk = w0;
    wk.mtp_draft_tokens = k;
    if (opts.disaggregated) sweep_disaggregated(m, hw, wk, gpus, opts, res, pts);
    sweep_aggregated(m, hw, wk, gpus, opts, res, pts);
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
