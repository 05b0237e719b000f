#pragma once
// Bounds the work of the requests: each evaluation runs on its own thread and the request waits for
// it up to a deadline; at most `max_running` evaluations run at once, those past their deadline
// included (an evaluation cannot be interrupted, so one that overran keeps its slot until it ends).
// A request that finds every slot taken waits for one up to `admission_wait` (at most the deadline),
// then is answered 503 rather than queued without end. An
// evaluation gives its slot back before its reply is handed to the request, so a client that sends
// its next request as soon as it has the answer never finds its own last evaluation still counted.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

namespace gpuplan::server {

// An HTTP answer.
struct Reply {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::string filename;  // set: served as an attachment of that name
  bool does_not_fit = false;
};

class Evaluator {
 public:
  Evaluator(std::size_t max_running, std::chrono::milliseconds deadline,
            std::chrono::milliseconds admission_wait = std::chrono::milliseconds(1000));
  ~Evaluator();  // waits for every evaluation still running
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  enum class Outcome { done, busy, timed_out, stopped };
  // Runs `job` (which must own everything it uses) and waits for it up to the deadline. On done,
  // `reply` holds the job's reply; `job` must not throw.
  Outcome run(std::function<Reply()> job, Reply& reply);
  // Makes every run() waiting, and every later one, return `stopped` at once (the server stops).
  void stop();

  std::size_t running() const;

 private:
  std::size_t max_running_;
  std::chrono::milliseconds deadline_;
  std::chrono::milliseconds admission_wait_;
  mutable std::mutex mutex_;
  std::condition_variable idle_;     // alive_ fell to 0
  std::condition_variable changed_;  // an evaluation ended, or stop()
  std::size_t running_ = 0;  // evaluations holding a slot
  std::size_t alive_ = 0;    // evaluation threads not yet done with the evaluator (a little longer)
  bool stopped_ = false;
};

}  // namespace gpuplan::server
