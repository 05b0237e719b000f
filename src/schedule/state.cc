#include "schedule/state.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace gpuplan::schedule {

int Placement::gpus() const {
  int n = 0;
  for (const Piece& p : pieces) n += p.gpus;
  return n;
}

ClusterState::ClusterState(const Cluster& cluster)
    : cluster_(&cluster),
      node_mask_(cluster.nodes().size()),
      node_free_(cluster.nodes().size()),
      domain_free_(cluster.domains().size()),
      total_free_(cluster.total_gpus()) {
  for (size_t i = 0; i < cluster.nodes().size(); ++i) {
    const int g = cluster.nodes()[i].gpus;
    node_mask_[i] = g >= 32 ? 0xffffffffu : ((1u << g) - 1u);
    node_free_[i] = g;
  }
  for (size_t d = 0; d < cluster.domains().size(); ++d) domain_free_[d] = cluster.domains()[d].gpus;
}

std::vector<uint32_t> ClusterState::allocate(const Placement& p) {
  std::vector<uint32_t> masks;
  masks.reserve(p.pieces.size());
  for (const Piece& piece : p.pieces) {
    uint32_t& free = node_mask_[piece.node];
    if (piece.gpus <= 0 || std::popcount(free) < piece.gpus)
      throw std::logic_error("schedule: placement asks for GPUs that are not free (double booking)");
    uint32_t taken = 0;
    for (int k = 0; k < piece.gpus; ++k) {
      const uint32_t bit = free & (~free + 1u);  // lowest free GPU
      taken |= bit;
      free &= ~bit;
    }
    masks.push_back(taken);
    node_free_[piece.node] -= piece.gpus;
    domain_free_[cluster_->nodes()[piece.node].domain] -= piece.gpus;
    total_free_ -= piece.gpus;
  }
  return masks;
}

void ClusterState::release(const Placement& p, const std::vector<uint32_t>& masks) {
  for (size_t i = 0; i < p.pieces.size(); ++i) {
    const Piece& piece = p.pieces[i];
    if (node_mask_[piece.node] & masks[i])
      throw std::logic_error("schedule: releasing GPUs that are already free");
    node_mask_[piece.node] |= masks[i];
    node_free_[piece.node] += piece.gpus;
    domain_free_[cluster_->nodes()[piece.node].domain] += piece.gpus;
    total_free_ += piece.gpus;
  }
}

PlacementShape shape_of(const Cluster& cluster, const Placement& p, int group_gpus) {
  PlacementShape s;
  const auto& nodes = cluster.nodes();
  const auto& domains = cluster.domains();
  std::vector<int> all;
  std::vector<int> in_group;
  int filled = 0;
  int largest = 0;
  auto close_group = [&] {
    std::sort(in_group.begin(), in_group.end());
    const int spans = static_cast<int>(std::unique(in_group.begin(), in_group.end()) - in_group.begin());
    const int needed = (group_gpus + largest - 1) / largest;
    if (spans > needed) ++s.split_groups;
    ++s.groups;
    in_group.clear();
    filled = 0;
    largest = 0;
  };
  for (const Piece& piece : p.pieces) {
    int left = piece.gpus;
    const int dom = nodes[piece.node].domain;
    all.push_back(dom);
    while (left > 0) {
      const int take = std::min(left, group_gpus - filled);
      in_group.push_back(dom);
      largest = std::max(largest, domains[dom].gpus);
      filled += take;
      left -= take;
      if (filled == group_gpus) close_group();
    }
  }
  if (filled > 0) close_group();
  std::sort(all.begin(), all.end());
  s.domains = static_cast<int>(std::unique(all.begin(), all.end()) - all.begin());
  return s;
}

}  // namespace gpuplan::schedule
