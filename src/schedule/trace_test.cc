#include "schedule/trace.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace gpuplan::schedule {
namespace {

TEST(Trace, ParsesPhillyRowsSortsAndShiftsTime) {
  auto jobs = parse_trace_csv(
      "timestamp,duration,num_gpus,gpu_time,cluster\n"
      "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
      "2017-10-09 06:13:03,2951.0,8,23608.0,6214e9\n"
      "2017-10-10 06:13:03,10,16,160,6214e9\n",
      "p.csv");
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_DOUBLE_EQ(jobs[0].submit_s, 0);
  EXPECT_EQ(jobs[0].gpus, 8);
  EXPECT_EQ(jobs[0].group_gpus, 8);  // data parallel: one group of all GPUs
  EXPECT_DOUBLE_EQ(jobs[1].submit_s, 48 * 60 + 52);
  EXPECT_DOUBLE_EQ(jobs[2].submit_s, 86400);
  EXPECT_EQ(jobs[2].id, 2);
}

TEST(Trace, NativeFormatRoundTrips) {
  MixOptions m;
  m.jobs = 50;
  auto jobs = generate_llm_mix(m);
  auto back = parse_trace_csv(write_trace_csv(jobs), "gen.csv");
  ASSERT_EQ(back.size(), jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(back[i].gpus, jobs[i].gpus);
    EXPECT_EQ(back[i].group_gpus, jobs[i].group_gpus);
    EXPECT_EQ(back[i].kind, jobs[i].kind);
    EXPECT_EQ(back[i].preemptible, jobs[i].preemptible);
    EXPECT_DOUBLE_EQ(back[i].duration_s, jobs[i].duration_s);
  }
}

TEST(Trace, BadRowsNameTheLineAndColumn) {
  try {
    parse_trace_csv("submit_s,duration_s,gpus,group_gpus\n0,10,8,8\n5,10,8,3\n", "t.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "t.csv:3.group_gpus");
  }
  EXPECT_THROW(parse_trace_csv("a,b,c\n1,2,3\n", "t.csv"), InputError);
  EXPECT_THROW(parse_trace_csv("timestamp,duration,num_gpus\n2017-13-01 00:00:00,1,1\n", "t.csv"), InputError);
  EXPECT_THROW(parse_trace_csv("submit_s,duration_s,gpus\n0,-1,1\n", "t.csv"), InputError);
}

TEST(Trace, TimestampsAreStrictAndCannotOverflow) {
  const std::string h = "timestamp,duration,num_gpus\n";
  for (const char* bad : {"99999999999-01-01 00:00:00", "2017-01-01 00:00:99999999999", "2017-02-29 00:00:00",
                          "2017-10-09 07:01:55x", "2017-10-09T07:01:55", "-2017-10-09 07:01:55", "1969-12-31 23:59:59",
                          "2017-10-09 24:00:00", "2017-10-09 07:01"})
    EXPECT_THROW(parse_trace_csv(h + bad + ",1,1\n", "t.csv"), InputError) << bad;
  const auto jobs = parse_trace_csv(h + "2016-02-29 00:00:00,1,1\n2016-3-1 0:0:0,1,1\n", "t.csv");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_DOUBLE_EQ(jobs[1].submit_s, 86400.0);  // Feb 29 of a leap year, then the next day at midnight
}

TEST(Trace, GeneratedMixIsSeededAndWellFormed) {
  MixOptions m;
  m.seed = 42;
  m.jobs = 1000;
  m.cluster_gpus = 1664;
  auto a = generate_llm_mix(m), b = generate_llm_mix(m);
  m.seed = 43;
  auto c = generate_llm_mix(m);
  ASSERT_EQ(a.size(), 1000u);
  int training = 0, inference = 0, finetune = 0;
  bool differs = false;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].gpus, b[i].gpus);
    EXPECT_DOUBLE_EQ(a[i].submit_s, b[i].submit_s);
    differs |= a[i].gpus != c[i].gpus || a[i].submit_s != c[i].submit_s;
    EXPECT_EQ(a[i].gpus % a[i].group_gpus, 0);
    EXPECT_LE(a[i].gpus, 1664);
    training += a[i].kind == JobKind::training;
    inference += a[i].kind == JobKind::inference;
    finetune += a[i].kind == JobKind::finetune;
    if (a[i].kind == JobKind::training) {
      EXPECT_GE(a[i].gpus, 64);
    }
  }
  EXPECT_TRUE(differs);
  EXPECT_NEAR(training, 100, 40);
  EXPECT_NEAR(finetune, 300, 60);
  EXPECT_NEAR(inference, 600, 60);
}

}  // namespace
}  // namespace gpuplan::schedule
