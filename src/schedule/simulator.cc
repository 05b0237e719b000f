#include "schedule/simulator.h"

#include <algorithm>
#include <limits>
#include <list>
#include <map>
#include <set>
#include <stdexcept>

#include "schedule/state.h"

namespace gpuplan::schedule {
namespace {

struct Running {
  Placement placement;
  std::vector<uint32_t> masks;
  double seg_start = 0;
  double end = 0;
  double factor = 1;
};

class Sim {
 public:
  Sim(const Cluster& c, const std::vector<Job>& jobs, const PlacementPolicy& p, const SimOptions& o)
      : cluster_(c), jobs_(jobs), policy_(p), opt_(o), state_(c), run_(jobs.size()),
        work_left_(jobs.size()), rec_index_(jobs.size(), -1) {}

  SimResult run() {
    SimResult res;
    res.policy = std::string(policy_.name()) + (opt_.backfill ? "+backfill" : "") + (opt_.preempt ? "+preempt" : "");
    for (size_t i = 0; i < jobs_.size(); ++i) {
      if (i > 0 && jobs_[i].submit_s < jobs_[i - 1].submit_s)
        throw std::invalid_argument("simulate: jobs must be sorted by submit time");
      if (jobs_[i].gpus > cluster_.total_gpus() || jobs_[i].gpus < 1) {
        res.skipped.push_back(jobs_[i].id);
        continue;
      }
      rec_index_[i] = static_cast<int>(records_.size());
      JobRecord r;
      r.job = jobs_[i].id;
      r.gpus = jobs_[i].gpus;
      r.submit_s = jobs_[i].submit_s;
      r.base_duration_s = jobs_[i].duration_s;
      records_.push_back(r);
      work_left_[i] = jobs_[i].duration_s;
    }
    size_t next = 0;
    const size_t n = jobs_.size();
    size_t progress_step = std::max<size_t>(1, n / 200), progress_next = progress_step;
    double now = 0, last_t = 0;
    int fragmented = 0;
    while (true) {
      while (next < n && rec_index_[next] < 0) ++next;
      const double t_arr = next < n ? jobs_[next].submit_s : kInf;
      const double t_end = running_.empty() ? kInf : running_.begin()->first;
      if (t_arr == kInf && t_end == kInf) {
        if (queue_.empty()) break;
        // Nothing runs or arrives, yet the head cannot start: only a policy that can never place it.
        drop_unplaceable(res);
        continue;
      }
      now = std::min(t_arr, t_end);
      fragmented_gpu_s_ += fragmented * (now - last_t);
      last_t = now;
      while (!running_.empty() && running_.begin()->first <= now) {
        const int j = running_.begin()->second;
        finish(j, now);
      }
      while (next < n && jobs_[next].submit_s <= now) {
        if (rec_index_[next] >= 0) enqueue(static_cast<int>(next));
        ++next;
        if (opt_.progress && next >= progress_next) {
          opt_.progress(static_cast<double>(next) / static_cast<double>(n));
          progress_next += progress_step;
        }
      }
      schedule_pass(now);
      fragmented = fragmented_free();
    }
    res.records = std::move(records_);
    res.metrics = summarise(res.records, cluster_.total_gpus(), static_cast<int>(res.skipped.size()), fragmented_gpu_s_);
    if (opt_.progress) opt_.progress(1.0);
    return res;
  }

 private:
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  using Key = std::pair<int, int>;  // (gpus, group_gpus)

  Key key(int j) const { return {jobs_[j].gpus, jobs_[j].group_gpus}; }

  void enqueue(int j) {
    queue_.push_back(j);
    ++waiting_[key(j)];
  }
  std::list<int>::iterator dequeue(std::list<int>::iterator it) {
    auto k = waiting_.find(key(*it));
    if (--k->second == 0) waiting_.erase(k);
    return queue_.erase(it);
  }

  void start(int j, Placement p, double now) {
    Running& r = run_[j];
    const PlacementShape shape = shape_of(cluster_, p, std::clamp(jobs_[j].group_gpus, 1, jobs_[j].gpus));
    r.factor = std::max(1.0, opt_.slowdown(jobs_[j], shape));
    r.masks = state_.allocate(p);
    r.placement = std::move(p);
    r.seg_start = now;
    r.end = now + work_left_[j] * r.factor;
    running_.insert({r.end, j});
    JobRecord& rec = records_[rec_index_[j]];
    if (rec.first_start_s < 0) rec.first_start_s = now;
    rec.slowdown = r.factor;
    rec.domains = shape.domains;
    rec.split_groups = shape.split_groups;
  }

  // Ends job j's current segment at `now`; returns its record.
  JobRecord& stop(int j, double now) {
    Running& r = run_[j];
    running_.erase({r.end, j});
    state_.release(r.placement, r.masks);
    JobRecord& rec = records_[rec_index_[j]];
    rec.run_s += now - r.seg_start;
    rec.gpus_held.clear();
    for (size_t i = 0; i < r.placement.pieces.size(); ++i) rec.gpus_held.push_back({r.placement.pieces[i].node, r.masks[i]});
    return rec;
  }

  void finish(int j, double now) {
    JobRecord& rec = stop(j, now);
    rec.end_s = now;
    work_left_[j] = 0;
  }

  void preempt(int j, double now) {
    const Running& r = run_[j];
    work_left_[j] = std::max(0.0, (r.end - now) / r.factor);
    JobRecord& rec = stop(j, now);
    ++rec.preemptions;
    enqueue(j);
  }

  bool try_preempt_for(int head, double now) {
    if (jobs_[head].preemptible) return false;
    std::vector<int> victims;
    int gain = state_.total_free();
    for (const auto& [end, j] : running_)
      if (jobs_[j].preemptible) {
        victims.push_back(j);
        gain += jobs_[j].gpus;
      }
    if (gain < jobs_[head].gpus) return false;
    std::sort(victims.begin(), victims.end(), [&](int a, int b) {
      return run_[a].seg_start != run_[b].seg_start ? run_[a].seg_start > run_[b].seg_start : a > b;
    });
    ClusterState trial = state_;
    size_t used = 0;
    std::optional<Placement> p;
    while (used < victims.size()) {
      const Running& r = run_[victims[used]];
      trial.release(r.placement, r.masks);
      ++used;
      if (trial.total_free() >= jobs_[head].gpus && (p = policy_.place(jobs_[head], trial))) break;
    }
    if (!p) return false;
    for (size_t i = 0; i < used; ++i) preempt(victims[i], now);
    // Place against the real state again: it equals `trial` now.
    p = policy_.place(jobs_[head], state_);
    if (!p) return false;
    start(head, std::move(*p), now);
    return true;
  }

  void schedule_pass(double now) {
    while (!queue_.empty()) {
      const int head = queue_.front();
      if (auto p = policy_.place(jobs_[head], state_)) {
        start(head, std::move(*p), now);
        dequeue(queue_.begin());
        continue;
      }
      if (opt_.preempt && try_preempt_for(head, now)) {
        dequeue(queue_.begin());
        continue;
      }
      break;
    }
    if (!opt_.backfill || queue_.size() < 2) return;
    // Reservation for the head: when do enough GPUs (by count) free up?
    const Job& head = jobs_[queue_.front()];
    int free_then = state_.total_free();
    double shadow = kInf;
    int extra = 0;
    for (const auto& [end, j] : running_) {
      free_then += jobs_[j].gpus;
      if (free_then >= head.gpus) {
        shadow = end;
        extra = free_then - head.gpus;
        break;
      }
    }
    std::vector<Key> failed;
    int examined = 0;
    for (auto it = std::next(queue_.begin()); it != queue_.end() && examined < opt_.backfill_depth;) {
      if (state_.total_free() == 0) break;
      ++examined;
      const int j = *it;
      const Job& job = jobs_[j];
      const bool short_enough = now + work_left_[j] <= shadow;
      if (job.gpus > state_.total_free() || (!short_enough && job.gpus > extra) ||
          std::find(failed.begin(), failed.end(), key(j)) != failed.end()) {
        ++it;
        continue;
      }
      auto p = policy_.place(job, state_);
      if (!p) {
        failed.push_back(key(j));
        ++it;
        continue;
      }
      const PlacementShape shape = shape_of(cluster_, *p, std::clamp(job.group_gpus, 1, job.gpus));
      const double factor = std::max(1.0, opt_.slowdown(job, shape));
      const bool ends_before = now + work_left_[j] * factor <= shadow;
      if (!ends_before && job.gpus > extra) {
        ++it;
        continue;
      }
      if (!ends_before) extra -= job.gpus;
      start(j, std::move(*p), now);
      it = dequeue(it);
    }
  }

  // Free GPUs that no waiting job can use right now (0 when the queue is empty or some job fits).
  int fragmented_free() const {
    const int free = state_.total_free();
    if (queue_.empty() || free == 0) return 0;
    for (const auto& [k, count] : waiting_) {
      if (k.first > free) break;  // keys ascend by GPUs
      Job probe;
      probe.gpus = k.first;
      probe.group_gpus = k.second;
      if (policy_.place(probe, state_)) return 0;
    }
    return free;
  }

  void drop_unplaceable(SimResult& res) {
    const int j = queue_.front();
    dequeue(queue_.begin());
    res.skipped.push_back(jobs_[j].id);
    records_[rec_index_[j]].end_s = -1;
  }

  const Cluster& cluster_;
  const std::vector<Job>& jobs_;
  const PlacementPolicy& policy_;
  const SimOptions& opt_;
  ClusterState state_;
  std::vector<Running> run_;
  std::vector<double> work_left_;
  std::vector<int> rec_index_;
  std::vector<JobRecord> records_;
  std::set<std::pair<double, int>> running_;  // (end, job index): the event queue of completions
  std::list<int> queue_;                      // waiting jobs, FIFO
  std::map<Key, int> waiting_;                // waiting jobs per (gpus, group) shape
  double fragmented_gpu_s_ = 0;
};

}  // namespace

SimResult simulate(const Cluster& cluster, const std::vector<Job>& jobs, const PlacementPolicy& policy,
                   const SimOptions& options) {
  return Sim(cluster, jobs, policy, options).run();
}

}  // namespace gpuplan::schedule
