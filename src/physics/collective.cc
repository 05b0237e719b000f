#include "physics/collective.h"

#include <algorithm>
#include <cmath>

namespace gpuplan {

const char* to_string(Collective c) {
  switch (c) {
    case Collective::all_reduce: return "all_reduce";
    case Collective::all_gather: return "all_gather";
    case Collective::reduce_scatter: return "reduce_scatter";
    case Collective::all_to_all: return "all_to_all";
    case Collective::send_recv: return "send_recv";
  }
  return "?";
}

int ranks_per_domain(const Group& g, const Fabric& f) {
  if (g.size <= 1) return 1;
  if (g.stride >= f.domain_gpus) return 1;
  return std::max(1, std::min(g.size, f.domain_gpus / std::max(1, g.stride)));
}

namespace {

// Share of the NIC bandwidth a group's scale-out traffic gets: a group wider than one scalable unit's
// leaves crosses the spine, which an r:1 oversubscribed leaf feeds at 1/r (gpuplan fabric). Rail-aligned
// rings keep their bandwidth on a rail-only fabric (each rail is its own non-blocking tree).
double beyond_leaf_share(int n, int stride, const Fabric& f) {
  if (f.scaleout_beyond_leaf_fraction >= 1.0 || f.scaleout_leaf_gpus <= 0) return 1.0;
  const double span_gpus = static_cast<double>(n) * std::max(1, stride);
  return span_gpus > f.scaleout_leaf_gpus ? f.scaleout_beyond_leaf_fraction : 1.0;
}

// Ring reduce-scatter (or all-gather) of a `bytes` buffer: each rank moves (n-1)/n of it.
// Hierarchical across domains: first inside each domain (k ranks) on scale-up links, then across the
// d domains on 1/k of the buffer, with the k GPUs of a domain using their NICs in parallel.
double scatter_gather_s(double bytes, int n, int k, const Hardware& hw, int stride) {
  const Fabric& f = hw.fabric;
  const double up = f.scaleup_bytes_per_s * hw.efficiency.scaleup_eff;
  const double out = f.scaleout_bytes_per_s * hw.efficiency.scaleout_eff * beyond_leaf_share(n, stride, f);
  const int d = (n + k - 1) / k;
  double t = 0;
  if (k > 1) t += (k - 1.0) / k * bytes / up + (k - 1) * f.scaleup_latency_s;
  if (d > 1) t += (d - 1.0) / d * (bytes / k) / out + (d - 1) * f.scaleout_latency_s;
  return t;
}

// A reduce-scatter/all-gather (passes = 1) or all-reduce (passes = 2) whose group spans scale-out
// domains runs in NCCL (the engines' one-shot/two-shot NVLink kernels stop at the domain), which
// picks the faster of two protocols (NVIDIA/nccl src/graph/tuning.cc, ncclTopoTuneModel):
//  - Simple: full link bandwidth, per-call base latency 8.4 us (baseLat ring/Simple);
//  - LL: 8-byte flag/data words, a quarter of the link bandwidth (busBw x 1/4 across nodes), per-call
//    base latency 6.8 us, and the intra-domain hops 1.8x slower when the ring crosses nodes.
// Inside one domain nothing changes. The Simple path keeps the hierarchical time above, so large
// (training) buffers move by 8.4 us per call at most; decode-sized buffers (0.1-4 MB) land between.
constexpr double kNcclSimpleBaseLatencyS = 8.4e-6;
constexpr double kNcclLlBaseLatencyS = 6.8e-6;
constexpr double kNcclLlBandwidthShare = 0.25;
constexpr double kNcclLlIntraHopFactor = 1.8;

double cross_domain_s(double bytes, int n, int k, const Hardware& hw, int stride, double passes) {
  const Fabric& f = hw.fabric;
  const double simple = kNcclSimpleBaseLatencyS + passes * scatter_gather_s(bytes, n, k, hw, stride);
  const double up = f.scaleup_bytes_per_s * hw.efficiency.scaleup_eff * kNcclLlBandwidthShare;
  const double out =
      f.scaleout_bytes_per_s * hw.efficiency.scaleout_eff * beyond_leaf_share(n, stride, f) * kNcclLlBandwidthShare;
  const int d = (n + k - 1) / k;
  double ll_pass = 0;
  if (k > 1) ll_pass += (k - 1.0) / k * bytes / up + (k - 1) * f.scaleup_latency_s * kNcclLlIntraHopFactor;
  ll_pass += (d - 1.0) / d * (bytes / k) / out + (d - 1) * f.scaleout_latency_s;
  return std::min(simple, kNcclLlBaseLatencyS + passes * ll_pass);
}

}  // namespace

double collective_time_s(Collective kind, double bytes, const Group& g, const Hardware& hw) {
  if (g.size <= 1 || bytes <= 0) return 0.0;
  const Fabric& f = hw.fabric;
  const int n = g.size;
  const int k = ranks_per_domain(g, f);
  const double up = f.scaleup_bytes_per_s * hw.efficiency.scaleup_eff;
  const double out = f.scaleout_bytes_per_s * hw.efficiency.scaleout_eff * beyond_leaf_share(n, g.stride, f);
  const double overhead = hw.efficiency.kernel_overhead_s;
  switch (kind) {
    case Collective::reduce_scatter:
    case Collective::all_gather:
      if (n > k) return overhead + cross_domain_s(bytes, n, k, hw, g.stride, 1.0);
      return overhead + scatter_gather_s(bytes, n, k, hw, g.stride);
    case Collective::all_reduce:
      if (n > k) return overhead + cross_domain_s(bytes, n, k, hw, g.stride, 2.0);
      return overhead + 2.0 * scatter_gather_s(bytes, n, k, hw, g.stride);
    case Collective::all_to_all: {
      // Each rank sends (n-1)/n of its buffer: the share for peers in its domain over scale-up
      // links, the rest over its NIC; both directions run at once.
      // Rail-only: the share bound for other domains first crosses NVLink to the GPU on the
      // destination's rail (Wang et al., arXiv 2307.12169), one more scale-up transfer and step.
      const bool forward = f.scaleout_rail_only && n > k;
      const double t_in = bytes * ((k - 1.0) + (forward ? double(n - k) : 0.0)) / n / up;
      const double t_out = bytes * double(n - k) / n / out;
      const double lat = (n > k ? f.scaleout_latency_s + (forward ? f.scaleup_latency_s : 0.0) : f.scaleup_latency_s);
      return overhead + std::max(t_in, t_out) + lat;
    }
    case Collective::send_recv: {
      const bool same_domain = g.stride < f.domain_gpus;
      return overhead + (same_domain ? bytes / up + f.scaleup_latency_s : bytes / out + f.scaleout_latency_s);
    }
  }
  return 0.0;
}

}  // namespace gpuplan
