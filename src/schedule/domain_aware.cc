// NVLink-domain-aware gang placement (policy.h).
#include <algorithm>
#include <vector>

#include "schedule/policy.h"

namespace gpuplan::schedule {
namespace {

// Could a job of `gpus` with groups of `q` be placed without a split group on the empty cluster?
bool fits_unsplit_when_empty(const Cluster& c, int gpus, int q) {
  const int groups = gpus / q;
  for (int d : c.domain_sizes()) {
    const long long n = c.domains_of_size(d);
    if (q <= d ? n * (d / q) >= groups : n >= static_cast<long long>(groups) * ((q + d - 1) / d)) return true;
  }
  return false;
}

// Places `gpus / q` groups of q (q <= every domain in `cls`), each inside one domain of `cls`: the
// whole job in the fullest domain that holds it, else whole free domains, then the fullest domain that
// holds the rest, then the roomiest. nullopt when the groups do not fit.
std::optional<Placement> place_groups(int gpus, int q, const std::vector<int>& cls, const ClusterState& st) {
  const auto& domains = st.cluster().domains();
  Placement p;
  int best = -1;
  for (int d : cls)
    if (st.domain_free(d) >= gpus && (best < 0 || st.domain_free(d) < st.domain_free(best))) best = d;
  if (best >= 0) {
    detail::fill_domain(st, best, gpus, p);
    return p;
  }
  int groups = gpus / q;
  long long capacity = 0;
  for (int d : cls) capacity += st.domain_free(d) / q;
  if (capacity < groups) return std::nullopt;
  std::vector<char> used(domains.size(), 0);
  // Whole-domain segments while the job needs at least a whole domain's worth of groups.
  for (int d : cls) {
    const int per_full = domains[d].gpus / q;
    if (groups >= per_full && st.domain_free(d) == domains[d].gpus) {
      detail::fill_domain(st, d, per_full * q, p);
      used[d] = 1;
      groups -= per_full;
    }
  }
  if (groups == 0) return p;
  best = -1;
  for (int d : cls) {
    const int cap = st.domain_free(d) / q;
    if (!used[d] && cap >= groups && (best < 0 || cap < st.domain_free(best) / q)) best = d;
  }
  if (best >= 0) {
    detail::fill_domain(st, best, groups * q, p);
    return p;
  }
  std::vector<int> rest;
  for (int d : cls)
    if (!used[d] && st.domain_free(d) >= q) rest.push_back(d);
  std::stable_sort(rest.begin(), rest.end(), [&](int a, int b) { return st.domain_free(a) > st.domain_free(b); });
  for (int d : rest) {
    if (groups == 0) break;
    const int k = std::min(groups, st.domain_free(d) / q);
    detail::fill_domain(st, d, k * q, p);
    groups -= k;
  }
  return groups == 0 ? std::optional<Placement>(p) : std::nullopt;
}

// Places every group inside domains of size `size` (groups larger than a domain in the fewest
// domains of that size), or nullopt.
std::optional<Placement> place_in_size(int gpus, int q, int size, const ClusterState& st) {
  const auto& domains = st.cluster().domains();
  std::vector<int> cls;
  for (int d = 0; d < static_cast<int>(domains.size()); ++d)
    if (domains[d].gpus == size && st.domain_free(d) > 0) cls.push_back(d);
  if (q <= size) return place_groups(gpus, q, cls, st);
  Placement p;
  // Groups larger than a domain: each takes q / size whole domains plus one domain for the remainder.
  const int whole = q / size;
  const int rem = q % size;
  std::vector<char> used(domains.size(), 0);
  for (int g = 0; g < gpus / q; ++g) {
    int taken = 0;
    for (int d : cls) {
      if (taken == whole) break;
      if (!used[d] && st.domain_free(d) == size) {
        detail::fill_domain(st, d, size, p);
        used[d] = 1;
        ++taken;
      }
    }
    if (taken < whole) return std::nullopt;
    if (rem > 0) {
      int best = -1;
      for (int d : cls)
        if (!used[d] && st.domain_free(d) >= rem && (best < 0 || st.domain_free(d) < st.domain_free(best))) best = d;
      if (best < 0) return std::nullopt;
      detail::fill_domain(st, best, rem, p);
      used[best] = 1;
    }
  }
  return p;
}

}  // namespace

std::optional<Placement> DomainAwarePolicy::place(const Job& job, const ClusterState& state) const {
  if (job.gpus > state.total_free()) return std::nullopt;
  const Cluster& c = state.cluster();
  const int q = std::clamp(job.group_gpus, 1, job.gpus);
  // First the smallest domains that hold a whole group, so each group sits in one domain.
  for (int size : c.domain_sizes())
    if (size >= q)
      if (auto p = place_in_size(job.gpus, q, size, state)) return p;
  // Groups that fit a domain may also mix domain sizes: each group still sits in one domain.
  std::vector<int> fit;
  for (int d = 0; d < static_cast<int>(c.domains().size()); ++d)
    if (c.domains()[d].gpus >= q && state.domain_free(d) >= q) fit.push_back(d);
  if (!fit.empty() && job.gpus > q)
    if (auto p = place_groups(job.gpus, q, fit, state)) return p;
  // Groups larger than a domain: the largest domains first, so each group spans the fewest.
  for (auto it = c.domain_sizes().rbegin(); it != c.domain_sizes().rend(); ++it)
    if (*it < q)
      if (auto p = place_in_size(job.gpus, q, *it, state)) return p;
  if (fits_unsplit_when_empty(c, job.gpus, q)) return std::nullopt;  // wait for a clean placement
  // Never placeable unsplit: roomiest domains first, so the job spans as few domains as possible.
  std::vector<int> order;
  for (int d = 0; d < static_cast<int>(c.domains().size()); ++d)
    if (state.domain_free(d) > 0) order.push_back(d);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return state.domain_free(a) > state.domain_free(b); });
  Placement p;
  int left = job.gpus;
  for (int d : order) {
    if (left == 0) break;
    const int k = std::min(left, state.domain_free(d));
    detail::fill_domain(state, d, k, p);
    left -= k;
  }
  return p;
}

}  // namespace gpuplan::schedule
