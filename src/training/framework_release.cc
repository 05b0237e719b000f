#include "training/framework_release.h"

#include <fmt/format.h>

#include <vector>

#include "core/error.h"

namespace gpuplan {

FrameworkRelease framework_release(int year, const std::string& field) {
  if (year < kOldestFrameworkRelease || year > kNewestFrameworkRelease)
    throw InputError(field, fmt::format("must be a year from {} to {} (the training framework's release), got {}",
                                        kOldestFrameworkRelease, kNewestFrameworkRelease, year));
  FrameworkRelease r;
  r.year = year;
  r.sequence_parallel = year >= 2022;
  r.distributed_optimizer = year >= 2022;
  r.tp_comm_overlap = year >= 2023;
  return r;
}

TrainingPlan with_release_limits(TrainingPlan p, const FrameworkRelease& r) {
  if (!r.sequence_parallel) p.sequence_parallel = false;
  if (!r.distributed_optimizer) {
    p.distributed_optimizer = false;
    p.zero = 0;
  }
  if (!r.tp_comm_overlap) p.tp_comm_overlap = false;
  return p;
}

std::string release_note(const FrameworkRelease& r) {
  std::vector<std::string> lacks;
  if (!r.distributed_optimizer) lacks.push_back("no distributed optimizer");
  if (!r.sequence_parallel) lacks.push_back("no sequence parallelism");
  if (!r.tp_comm_overlap) lacks.push_back("no TP communication overlap");
  if (lacks.empty()) return "";
  return fmt::format("{} framework: {}", r.year, fmt::join(lacks, ", "));
}

}  // namespace gpuplan
