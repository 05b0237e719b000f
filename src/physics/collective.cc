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

// A reduce-scatter/all-gather (passes = 1) or all-reduce (passes = 2) whose group spans scale-out
// domains runs in NCCL (the engines' one-shot/two-shot NVLink kernels stop at the domain), which
// picks the faster of two protocols (NVIDIA/nccl src/graph/tuning.cc, ncclTopoTuneModel):
//  - Simple: full link bandwidth, per-call base latency 8.4 us (baseLat ring/Simple);
//  - LL: 8-byte flag/data words, a quarter of the link bandwidth (busBw x 1/4 across nodes), per-call
//    base latency 6.8 us, and the intra-domain hops 1.8x slower when the ring crosses nodes.
// Inside one domain nothing changes. The Simple path keeps the hierarchical ring time (scatter_gather_s),
// so large (training) buffers move by 8.4 us per call at most; decode-sized buffers (0.1-4 MB) land between.
constexpr double kNcclSimpleBaseLatencyS = 8.4e-6;
constexpr double kNcclLlBaseLatencyS = 6.8e-6;
constexpr double kNcclLlBandwidthShare = 0.25;
constexpr double kNcclLlIntraHopFactor = 1.8;

}  // namespace

// Ring reduce-scatter (or all-gather) of a `bytes` buffer: each rank moves (n-1)/n of it.
// Hierarchical across domains: first inside each domain (k ranks) on scale-up links, then across the
// d domains on 1/k of the buffer, with the k GPUs of a domain using their NICs in parallel.
double CollectiveTime::scatter_gather_s(double bytes) const {
  double t = 0;
  if (k_ > 1) t += in_share_ * bytes / up_ + in_lat_;
  if (d_ > 1) t += across_share_ * (bytes / k_) / out_ + across_lat_;
  return t;
}

double CollectiveTime::cross_domain_s(double bytes, double passes) const {
  const double simple = kNcclSimpleBaseLatencyS + passes * scatter_gather_s(bytes);
  double ll_pass = 0;
  if (k_ > 1) ll_pass += in_share_ * bytes / up_ll_ + in_lat_ll_;
  ll_pass += across_share_ * (bytes / k_) / out_ll_ + across_lat_;
  return std::min(simple, kNcclLlBaseLatencyS + passes * ll_pass);
}

CollectiveTime::CollectiveTime(Collective kind, const Group& g, const Hardware& hw) : kind_(kind) {
  none_ = g.size <= 1;
  if (none_) return;
  const Fabric& f = hw.fabric;
  const int n = n_ = g.size;
  const int k = k_ = ranks_per_domain(g, f);
  const int d = d_ = (n + k - 1) / k;
  cross_ = n > k;
  // Inside a domain the group's k ranks talk to one another (a pair, when sending to the next stage).
  up_ = f.scaleup_group_bytes_per_s(kind == Collective::send_recv ? 2 : k) * hw.efficiency.scaleup_eff;
  out_ = f.scaleout_bytes_per_s * hw.efficiency.scaleout_eff * beyond_leaf_share(n, g.stride, f);
  overhead_ = hw.efficiency.kernel_overhead_s;
  up_lat_ = f.scaleup_latency_s;
  out_lat_ = f.scaleout_latency_s;
  in_share_ = (k - 1.0) / k;
  in_lat_ = (k - 1) * f.scaleup_latency_s;
  across_share_ = (d - 1.0) / d;
  across_lat_ = (d - 1) * f.scaleout_latency_s;
  up_ll_ = up_ * kNcclLlBandwidthShare;
  out_ll_ = out_ * kNcclLlBandwidthShare;
  in_lat_ll_ = in_lat_ * kNcclLlIntraHopFactor;
  // All-to-all: each rank sends (n-1)/n of its buffer: the share for peers in its domain over scale-up
  // links, the rest over its NIC; both directions run at once.
  // Rail-only: the share bound for other domains first crosses NVLink to the GPU on the destination's
  // rail (Wang et al., arXiv 2307.12169), one more scale-up transfer and step.
  const bool forward = f.scaleout_rail_only && n > k;
  a2a_in_ranks_ = (k - 1.0) + (forward ? double(n - k) : 0.0);
  a2a_out_ranks_ = double(n - k);
  a2a_lat_ = n > k ? f.scaleout_latency_s + (forward ? f.scaleup_latency_s : 0.0) : f.scaleup_latency_s;
  same_domain_ = g.stride < f.domain_gpus;
}

double CollectiveTime::at(double bytes) const {
  if (none_ || bytes <= 0) return 0.0;
  switch (kind_) {
    case Collective::reduce_scatter:
    case Collective::all_gather:
      if (cross_) return overhead_ + cross_domain_s(bytes, 1.0);
      return overhead_ + scatter_gather_s(bytes);
    case Collective::all_reduce:
      if (cross_) return overhead_ + cross_domain_s(bytes, 2.0);
      return overhead_ + 2.0 * scatter_gather_s(bytes);
    case Collective::all_to_all: {
      const double t_in = bytes * a2a_in_ranks_ / n_ / up_;
      const double t_out = bytes * a2a_out_ranks_ / n_ / out_;
      return overhead_ + std::max(t_in, t_out) + a2a_lat_;
    }
    case Collective::send_recv:
      return overhead_ + (same_domain_ ? bytes / up_ + up_lat_ : bytes / out_ + out_lat_);
  }
  return 0.0;
}

double collective_time_s(Collective kind, double bytes, const Group& g, const Hardware& hw) {
  if (g.size <= 1 || bytes <= 0) return 0.0;
  return CollectiveTime(kind, g, hw).at(bytes);
}

}  // namespace gpuplan
