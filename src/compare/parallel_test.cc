#include "compare/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

namespace gpuplan::compare {
namespace {

TEST(RunParallel, EveryJobRunsOnceAndNestedCallsFinish) {
  std::vector<int> runs(8, 0);
  std::atomic<int> inner{0};
  std::vector<std::function<void()>> jobs;
  for (std::size_t i = 0; i < runs.size(); ++i)
    jobs.push_back([&, i] {
      ++runs[i];
      std::vector<std::function<void()>> nested(5, [&] { ++inner; });
      run_parallel(nested);
    });
  run_parallel(jobs);
  for (int r : runs) EXPECT_EQ(r, 1);
  EXPECT_EQ(inner.load(), 8 * 5);
  run_parallel({});  // nothing to run
}

TEST(RunParallel, TheFirstFailingJobInTheListsOrderThrowsAfterAllRan) {
  std::atomic<int> ran{0};
  std::vector<std::function<void()>> jobs;
  for (int i = 0; i < 6; ++i)
    jobs.push_back([&, i] {
      ++ran;
      if (i == 2) throw std::runtime_error("second");
      if (i == 4) throw std::logic_error("fourth");
    });
  try {
    run_parallel(jobs);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "second");
  }
  EXPECT_EQ(ran.load(), 6);
}

}  // namespace
}  // namespace gpuplan::compare
