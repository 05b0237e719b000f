#include "compare/parallel.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace gpuplan::compare {

namespace {

// One call's jobs: the next one not yet taken, those not yet finished, and each job's exception.
struct Batch {
  const std::vector<std::function<void()>>* jobs = nullptr;
  std::size_t next = 0;
  std::size_t unfinished = 0;
  std::vector<std::exception_ptr> errors;  // each job's own slot
};

// The machine's hardware threads, held for the process: the calling thread and hardware_concurrency - 1
// workers, made once (no thread is made per call, none beyond the cores when calls nest). Every thread
// that waits for a batch runs jobs meanwhile: its own batch's first, then the newest batch's, whose
// caller is the deepest and waits on them (a nested call is the tail of the job that made it).
class Pool {
 public:
  static Pool& instance() {
    static Pool* pool = new Pool();  // never destroyed: workers wait for jobs until the process ends
    return *pool;
  }

  void run(const std::vector<std::function<void()>>& jobs) {
    Batch b;
    b.jobs = &jobs;
    b.unfinished = jobs.size();
    b.errors.resize(jobs.size());
    std::unique_lock<std::mutex> lock(mutex_);
    open_.push_back(&b);
    if (jobs.size() > 1) changed_.notify_all();
    while (b.unfinished > 0) {
      Batch* from = b.next < jobs.size() ? &b : newest_open();
      if (!from) {
        changed_.wait(lock);
        continue;
      }
      run_one(*from, lock);
    }
    for (const std::exception_ptr& e : b.errors)
      if (e) std::rethrow_exception(e);
  }

 private:
  Pool() {
    const unsigned n = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned t = 1; t < n; ++t) std::thread([this] { work(); }).detach();
  }

  void work() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      Batch* from = newest_open();
      if (!from) {
        changed_.wait(lock);
        continue;
      }
      run_one(*from, lock);
    }
  }

  // The newest batch with a job not yet taken (mutex_ held).
  Batch* newest_open() const { return open_.empty() ? nullptr : open_.back(); }

  // Takes b's next job and runs it with the lock released (mutex_ held on entry and on return).
  void run_one(Batch& b, std::unique_lock<std::mutex>& lock) {
    const std::size_t i = b.next++;
    if (b.next == b.jobs->size()) open_.erase(std::find(open_.begin(), open_.end(), &b));
    lock.unlock();
    try {
      (*b.jobs)[i]();
    } catch (...) {
      b.errors[i] = std::current_exception();
    }
    lock.lock();
    if (--b.unfinished == 0) changed_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable changed_;  // a batch was opened, or a batch's last job finished
  std::vector<Batch*> open_;      // batches with jobs not yet taken, oldest first
};

}  // namespace

void run_parallel(const std::vector<std::function<void()>>& jobs) {
  if (jobs.empty()) return;
  Pool::instance().run(jobs);
}

}  // namespace gpuplan::compare
