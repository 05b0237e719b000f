#include "schedule/timeline.h"

#include <gtest/gtest.h>

namespace gpuplan::schedule {
namespace {

JobRecord rec(int gpus, double submit, double start, double end) {
  JobRecord r;
  r.gpus = gpus;
  r.submit_s = submit;
  r.first_start_s = start;
  r.end_s = end;
  r.run_s = end - start;
  r.base_duration_s = r.run_s;
  return r;
}

TEST(UtilisationTimeline, BinsBusyGpuSecondsAndAveragesToTheMetric) {
  // 8 GPUs; 0-100 s: 8 busy; 100-200 s: 4 busy; window 0-200 s in 4 bins.
  const std::vector<JobRecord> rs = {rec(4, 0, 0, 200), rec(4, 0, 0, 100)};
  const UtilisationTimeline t = utilisation_timeline(rs, 8, 4);
  ASSERT_EQ(t.utilisation.size(), 4u);
  EXPECT_DOUBLE_EQ(t.bin_s, 50);
  EXPECT_DOUBLE_EQ(t.t_s[0], 25);
  EXPECT_DOUBLE_EQ(t.utilisation[0], 1.0);
  EXPECT_DOUBLE_EQ(t.utilisation[1], 1.0);
  EXPECT_DOUBLE_EQ(t.utilisation[2], 0.5);
  EXPECT_DOUBLE_EQ(t.utilisation[3], 0.5);
  double mean = 0;
  for (double u : t.utilisation) mean += u / 4;
  EXPECT_DOUBLE_EQ(mean, summarise(rs, 8, 0, 0).utilisation);
}

TEST(UtilisationTimeline, SplitsAJobAcrossBinsAndSkipsUnfinishedJobs) {
  JobRecord never = rec(8, 0, -1, -1);
  const UtilisationTimeline t = utilisation_timeline({rec(2, 0, 30, 90), rec(1, 10, 10, 120), never}, 4, 2);
  ASSERT_EQ(t.utilisation.size(), 2u);  // window 0-120 s
  EXPECT_DOUBLE_EQ(t.utilisation[0], (2 * 30.0 + 1 * 50.0) / (4 * 60.0));
  EXPECT_DOUBLE_EQ(t.utilisation[1], (2 * 30.0 + 1 * 60.0) / (4 * 60.0));
  EXPECT_TRUE(utilisation_timeline({}, 4, 10).utilisation.empty());
}

}  // namespace
}  // namespace gpuplan::schedule
