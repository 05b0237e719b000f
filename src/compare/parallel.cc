#include "compare/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

namespace gpuplan::compare {

void run_parallel(const std::vector<std::function<void()>>& jobs) {
  const std::size_t n = std::min<std::size_t>(jobs.size(), std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  const auto worker = [&] {
    for (std::size_t i; (i = next++) < jobs.size();) {
      try {
        jobs[i]();
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < n; ++t) threads.emplace_back(worker);
  worker();
  for (auto& th : threads) th.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace gpuplan::compare
