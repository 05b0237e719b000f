#pragma once
// Which GPUs of a cluster are free: a bitmask per node plus free counts per node, per domain and in
// total, kept in step so policies can scan counts and the simulator can prove no GPU is double-booked.
#include <cstdint>
#include <utility>
#include <vector>

#include "schedule/cluster.h"

namespace gpuplan::schedule {

// GPUs of one node given to a job.
struct Piece {
  int node = 0;
  int gpus = 0;
};

// Where a job runs: pieces in rank order (a group's ranks are consecutive).
struct Placement {
  std::vector<Piece> pieces;
  int gpus() const;
};

class ClusterState {
 public:
  explicit ClusterState(const Cluster& cluster);

  const Cluster& cluster() const { return *cluster_; }
  int total_free() const { return total_free_; }
  int node_free(int node) const { return node_free_[node]; }
  int domain_free(int domain) const { return domain_free_[domain]; }
  uint32_t node_free_mask(int node) const { return node_mask_[node]; }

  // Takes the lowest free GPUs of each piece's node; returns the masks taken (one per piece).
  // Throws std::logic_error if a piece asks for more GPUs than are free (a double booking).
  std::vector<uint32_t> allocate(const Placement& p);
  // Gives back what allocate() took. Throws std::logic_error if a GPU was not allocated.
  void release(const Placement& p, const std::vector<uint32_t>& masks);

 private:
  const Cluster* cluster_;
  std::vector<uint32_t> node_mask_;
  std::vector<int> node_free_;
  std::vector<int> domain_free_;
  int total_free_ = 0;
};

// How a placement sits in the NVLink domains, for a job with groups of `group_gpus`.
struct PlacementShape {
  int domains = 0;       // distinct domains the job touches
  int groups = 0;        // tightly coupled groups
  int split_groups = 0;  // groups spanning more domains than ceil(group / largest touched domain)
};
PlacementShape shape_of(const Cluster& cluster, const Placement& p, int group_gpus);

}  // namespace gpuplan::schedule
