#pragma once
// Collective communication time from algorithm, bytes, group size and the link tier the group spans.
// Rank order is explicit: a group is `size` ranks spaced `stride` apart (TP innermost, stride 1;
// then CP, EP, DP, PP), so whether it fits one NVLink domain follows from the plan.
#include "physics/hardware.h"

namespace gpuplan {

enum class Collective { all_reduce, all_gather, reduce_scatter, all_to_all, send_recv };
const char* to_string(Collective c);

struct Group {
  int size = 1;    // ranks in the group
  int stride = 1;  // distance between consecutive ranks (product of the inner parallel sizes)
};

// Ranks of one group that share an NVLink domain (1..size).
int ranks_per_domain(const Group& g, const Fabric& f);

// Seconds for one collective where each rank holds `bytes` (the full buffer for all-reduce and
// reduce-scatter input, the full output for all-gather, the whole send buffer for all-to-all, the
// message for send_recv). Inside one domain: ring over scale-up links. Across domains: hierarchical
// (inside each domain at scale-up speed, then across domains on each GPU's NIC share in parallel).
double collective_time_s(Collective kind, double bytes, const Group& g, const Hardware& hw);

// collective_time_s of one kind over one group on one hardware, with what does not depend on the bytes
// (the ranks per domain, the link rates and latencies, the shares each tier moves) made once: at(bytes)
// is collective_time_s(kind, bytes, g, hw), bit for bit, for models that ask it for many buffers.
class CollectiveTime {
 public:
  CollectiveTime() = default;  // a group of one rank: every collective takes no time
  CollectiveTime(Collective kind, const Group& g, const Hardware& hw);
  double at(double bytes) const;

 private:
  double scatter_gather_s(double bytes) const;
  double cross_domain_s(double bytes, double passes) const;

  Collective kind_ = Collective::all_reduce;
  bool none_ = true;          // one rank: no time
  bool cross_ = false;        // the group spans scale-up domains (n > k)
  bool same_domain_ = true;   // send_recv: both ranks in one domain
  int n_ = 1, k_ = 1, d_ = 1; // ranks, ranks per domain, domains
  double up_ = 0, out_ = 0, overhead_ = 0, up_lat_ = 0, out_lat_ = 0;
  double in_share_ = 0, in_lat_ = 0;          // a ring inside a domain: (k - 1) / k of the buffer, k - 1 hops
  double across_share_ = 0, across_lat_ = 0;  // and across the d domains
  double up_ll_ = 0, out_ll_ = 0, in_lat_ll_ = 0;  // NCCL's LL protocol
  double a2a_in_ranks_ = 0, a2a_out_ranks_ = 0, a2a_lat_ = 0;  // all-to-all
};

}  // namespace gpuplan
