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

}  // namespace gpuplan
