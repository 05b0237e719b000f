#include "compare/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

namespace gpuplan::compare {

void run_parallel(const std::vector<std::function<void()>>& jobs) {
  const std::size_t n = std::min<std::size_t>(jobs.size(), std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(jobs.size());  // each job's own slot: no lock
  const auto worker = [&] {
    for (std::size_t i; (i = next++) < jobs.size();) {
      try {
        jobs[i]();
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < n; ++t) threads.emplace_back(worker);
  worker();
  for (auto& th : threads) th.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace gpuplan::compare
