#pragma once
// Placement policies: given the free GPUs, where (if anywhere) a job starts now. The queue discipline
// (FIFO, EASY backfill, pre-emption) lives in the simulator; a policy only chooses GPUs.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schedule/job.h"
#include "schedule/state.h"

namespace gpuplan::schedule {

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  virtual std::string_view name() const = 0;
  // GPUs for `job` among the free ones of `state` (pieces in rank order), or nullopt when it cannot
  // start now. Never modifies state.
  virtual std::optional<Placement> place(const Job& job, const ClusterState& state) const = 0;
};

// FIFO first-fit: free GPUs in node order, topology-unaware (what a plain GPU-count scheduler does).
class FirstFitPolicy final : public PlacementPolicy {
 public:
  std::string_view name() const override { return "fifo"; }
  std::optional<Placement> place(const Job& job, const ClusterState& state) const override;
};

// Best-fit on nodes: a job that fits one node goes to the fullest node that holds it; larger jobs take
// whole free nodes, then the best-fitting node for the rest. Knows nodes, not NVLink domains.
class BestFitPolicy final : public PlacementPolicy {
 public:
  std::string_view name() const override { return "best-fit"; }
  std::optional<Placement> place(const Job& job, const ClusterState& state) const override;
};

// NVLink-domain-aware gang placement: every tightly coupled group inside one domain of the smallest
// size that holds a group (groups larger than every domain: in the fewest whole domains, largest
// size first); a job that fits a domain goes to the fullest domain that holds it; large jobs take
// whole-domain segments. A job that could
// not be placed that way even on the empty cluster is placed across domains (and slowed) rather than
// starved.
class DomainAwarePolicy final : public PlacementPolicy {
 public:
  std::string_view name() const override { return "domain-aware"; }
  std::optional<Placement> place(const Job& job, const ClusterState& state) const override;
};

// "fifo" (alias "first-fit"), "best-fit", "domain-aware"; unknown -> InputError on `field`.
std::unique_ptr<PlacementPolicy> make_policy(std::string_view name, const std::string& field = "--policy");
// The policy names in table order.
std::vector<std::string> policy_names();

namespace detail {
// Appends `gpus` GPUs from the free GPUs of domain `d` to `out`: a node that holds them all (fullest
// first) or whole nodes in descending free order. Returns false (out unchanged) if the domain lacks room.
bool fill_domain(const ClusterState& state, int d, int gpus, Placement& out);
}  // namespace detail

}  // namespace gpuplan::schedule
