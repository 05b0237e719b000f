#include "server/evaluator.h"

#include <memory>
#include <thread>

namespace gpuplan::server {

namespace {

// What one evaluation hands back to the request waiting for it (shared: the request may have gone).
struct Slot {
  std::mutex mutex;
  std::condition_variable ready;
  bool done = false;
  Reply reply;
};

}  // namespace

Evaluator::Evaluator(std::size_t max_running, std::chrono::milliseconds deadline)
    : max_running_(max_running), deadline_(deadline) {}

Evaluator::~Evaluator() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return running_ == 0; });
}

std::size_t Evaluator::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

Evaluator::Outcome Evaluator::run(std::function<Reply()> job, Reply& reply) {
  {
    std::lock_guard lock(mutex_);
    if (running_ >= max_running_) return Outcome::busy;
    ++running_;
  }
  auto slot = std::make_shared<Slot>();
  try {
    std::thread([this, slot, job = std::move(job)] {
      Reply r = job();
      {
        std::lock_guard lock(slot->mutex);
        slot->reply = std::move(r);
        slot->done = true;
        slot->ready.notify_all();
      }
      std::lock_guard lock(mutex_);  // notified under the lock: the destructor cannot run before
      --running_;
      idle_.notify_all();
    }).detach();
  } catch (const std::system_error&) {  // no thread to be had: as busy
    std::lock_guard lock(mutex_);
    --running_;
    idle_.notify_all();
    return Outcome::busy;
  }
  std::unique_lock lock(slot->mutex);
  if (!slot->ready.wait_for(lock, deadline_, [&] { return slot->done; })) return Outcome::timed_out;
  reply = std::move(slot->reply);
  return Outcome::done;
}

}  // namespace gpuplan::server
