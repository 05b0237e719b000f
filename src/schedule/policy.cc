#include "schedule/policy.h"

#include <algorithm>

#include "core/error.h"
#include "core/suggest.h"

namespace gpuplan::schedule {

std::vector<std::string> policy_names() { return {"fifo", "best-fit", "domain-aware"}; }

std::unique_ptr<PlacementPolicy> make_policy(std::string_view name, const std::string& field) {
  if (name == "fifo" || name == "first-fit") return std::make_unique<FirstFitPolicy>();
  if (name == "best-fit") return std::make_unique<BestFitPolicy>();
  if (name == "domain-aware") return std::make_unique<DomainAwarePolicy>();
  throw InputError(field, "unknown policy '" + std::string(name) + "' (allowed: fifo, best-fit, domain-aware, all)" +
                              did_you_mean(std::string(name), policy_names()));
}

namespace detail {

bool fill_domain(const ClusterState& state, int d, int gpus, Placement& out) {
  if (state.domain_free(d) < gpus) return false;
  const Domain& dom = state.cluster().domains()[d];
  // One node that holds the whole request: the fullest such node.
  int best = -1;
  for (int n = dom.first_node; n < dom.first_node + dom.nodes; ++n) {
    const int f = state.node_free(n);
    if (f >= gpus && (best < 0 || f < state.node_free(best))) best = n;
  }
  if (best >= 0) {
    out.pieces.push_back({best, gpus});
    return true;
  }
  // Otherwise the emptiest nodes first, so the request spans as few nodes as possible.
  int order[1024];
  int count = 0;
  for (int n = dom.first_node; n < dom.first_node + dom.nodes && count < 1024; ++n)
    if (state.node_free(n) > 0) order[count++] = n;
  std::stable_sort(order, order + count, [&](int a, int b) { return state.node_free(a) > state.node_free(b); });
  int left = gpus;
  for (int i = 0; i < count && left > 0; ++i) {
    const int take = std::min(left, state.node_free(order[i]));
    out.pieces.push_back({order[i], take});
    left -= take;
  }
  return true;
}

}  // namespace detail

std::optional<Placement> FirstFitPolicy::place(const Job& job, const ClusterState& state) const {
  if (job.gpus > state.total_free()) return std::nullopt;
  Placement p;
  int left = job.gpus;
  const int n_nodes = static_cast<int>(state.cluster().nodes().size());
  for (int n = 0; n < n_nodes && left > 0; ++n) {
    const int f = state.node_free(n);
    if (f == 0) continue;
    const int take = std::min(f, left);
    p.pieces.push_back({n, take});
    left -= take;
  }
  return p;
}

std::optional<Placement> BestFitPolicy::place(const Job& job, const ClusterState& state) const {
  if (job.gpus > state.total_free()) return std::nullopt;
  const auto& nodes = state.cluster().nodes();
  const int n_nodes = static_cast<int>(nodes.size());
  auto best_node_for = [&](int gpus, const std::vector<char>* used) {
    int best = -1;
    for (int n = 0; n < n_nodes; ++n) {
      if (used && (*used)[n]) continue;
      const int f = state.node_free(n);
      if (f >= gpus && (best < 0 || f < state.node_free(best))) best = n;
    }
    return best;
  };
  Placement p;
  if (int n = best_node_for(job.gpus, nullptr); n >= 0) {
    p.pieces.push_back({n, job.gpus});
    return p;
  }
  // Whole free nodes first (node order), then the best-fitting node for the remainder, then the
  // emptiest partial nodes.
  std::vector<char> used(n_nodes, 0);
  int left = job.gpus;
  for (int n = 0; n < n_nodes && left > 0; ++n) {
    if (state.node_free(n) == nodes[n].gpus && nodes[n].gpus <= left) {
      p.pieces.push_back({n, nodes[n].gpus});
      used[n] = 1;
      left -= nodes[n].gpus;
    }
  }
  if (left > 0) {
    if (int n = best_node_for(left, &used); n >= 0) {
      p.pieces.push_back({n, left});
      return p;
    }
    std::vector<int> rest;
    for (int n = 0; n < n_nodes; ++n)
      if (!used[n] && state.node_free(n) > 0) rest.push_back(n);
    std::stable_sort(rest.begin(), rest.end(), [&](int a, int b) { return state.node_free(a) > state.node_free(b); });
    for (int n : rest) {
      if (left == 0) break;
      const int take = std::min(left, state.node_free(n));
      p.pieces.push_back({n, take});
      left -= take;
    }
  }
  return p;
}

}  // namespace gpuplan::schedule
