#include "server/evaluator.h"

#include <algorithm>
#include <memory>
#include <thread>

namespace gpuplan::server {

namespace {

// What one evaluation hands back to the request waiting for it (shared: the request may have gone).
// Guarded by the evaluator's mutex.
struct Slot {
  bool done = false;
  Reply reply;
};

}  // namespace

Evaluator::Evaluator(std::size_t max_running, std::chrono::milliseconds deadline,
                     std::chrono::milliseconds admission_wait)
    : max_running_(max_running), deadline_(deadline), admission_wait_(std::min(admission_wait, deadline)) {}

Evaluator::~Evaluator() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return alive_ == 0; });
}

std::size_t Evaluator::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

void Evaluator::stop() {
  std::lock_guard lock(mutex_);
  stopped_ = true;
  changed_.notify_all();
}

Evaluator::Outcome Evaluator::run(std::function<Reply()> job, Reply& reply) {
  {
    std::unique_lock lock(mutex_);
    // Every slot taken: wait a little for one (cheap evaluations end in milliseconds), not for ever.
    if (!changed_.wait_for(lock, admission_wait_, [&] { return running_ < max_running_ || stopped_; }))
      return Outcome::busy;
    if (stopped_) return Outcome::stopped;
    ++running_;
    ++alive_;
  }
  auto slot = std::make_shared<Slot>();
  try {
    std::thread([this, slot, job = std::move(job)]() mutable {
      // Straight into the slot (the request reads it only once done is set, under the lock): no
      // Reply of this thread's own outlives the handover.
      slot->reply = job();
      job = nullptr;  // what the job held (its options) goes now, not when the thread is torn down
      {
        // The slot is given back and the reply handed over at once, under the lock, before the
        // request can answer; the thread lets go of the slot first, so what the request finds is
        // its own from then on.
        std::lock_guard lock(mutex_);
        --running_;
        slot->done = true;
        slot.reset();
        changed_.notify_all();
      }
      // Last: the destructor waits for this, so nothing of the evaluation outlives the evaluator.
      std::lock_guard lock(mutex_);
      if (--alive_ == 0) idle_.notify_all();
    }).detach();
  } catch (const std::system_error&) {  // no thread to be had: as busy
    std::lock_guard lock(mutex_);
    --running_;
    if (--alive_ == 0) idle_.notify_all();
    changed_.notify_all();
    return Outcome::busy;
  }
  std::unique_lock lock(mutex_);
  if (!changed_.wait_for(lock, deadline_, [&] { return slot->done || stopped_; })) return Outcome::timed_out;
  if (!slot->done) return Outcome::stopped;
  reply = std::move(slot->reply);
  return Outcome::done;
}

}  // namespace gpuplan::server
