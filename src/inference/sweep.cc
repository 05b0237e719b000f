#include "inference/sweep.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"

namespace gpuplan {

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
            pts.push_back({par, w.concurrency, std::move(r)});
          }
        }
      }
    }
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
