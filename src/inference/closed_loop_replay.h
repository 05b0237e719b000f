#pragma once
// A closed-loop benchmark run replayed request by request on a disaggregated deployment whose decode
// workers are full: the median request's time to first token. See docs/inference-model.md
// ("Clients beyond the decode slots: the run replayed").
//
// With more clients than decode slots, which requests wait for a slot depends on when the slots free,
// and a closed loop keeps the run's opening burst: every client sends its first prompt at once, the
// decodes that start together end together (lengths vary by only +-11%), and the clients they release
// return together. The mean wait follows from Little's law; the median does not (measured medians are
// 0.3-0.85 of the means), so the run itself is replayed: FIFO through the prefill pool at its
// capacity, a router that hands each prompt to the next decode worker in turn (Dynamo's and SGLang's
// router default, round robin), each worker's queue served as its sequences finish.
#include <cstdint>

namespace gpuplan {

struct ClosedLoopReplayInput {
  long long clients = 1;            // benchmark clients (--max-concurrency)
  int requests_per_client = 10;     // prompts each client sends, one after another
  int decode_workers = 1;           // workers the router rotates over
  long long slots_per_worker = 1;   // sequences one decode worker holds at once
  double prefill_per_prompt_s = 0;  // the prefill pool's spacing between prompts (1 / its capacity)
  double first_token_s = 0;         // one prompt's own path to its first token: prefill, hand-off, one step
  double decode_step_s = 0;         // a decode step (a prompt that waited for a slot gets its first token one step after)
  double decode_life_s = 0;         // a sequence's decode time after its first token, at the mean length
  double length_low_fraction = 1;   // lengths uniform in [low, 1] x the longest (1: all the same)
  std::uint64_t seed = 1;           // the replay's length draws (deterministic)
};

struct ClosedLoopReplay {
  double ttft_median_s = 0;
  double ttft_mean_s = 0;
  long long requests = 0;
};

// Largest run replayed (clients x requests_per_client: 50,000 clients of 10 requests, four times the
// largest published run; ~0.25 s): larger runs are not replayed (requests = 0) and keep the steady state.
constexpr long long kClosedLoopReplayMaxRequests = 500'000;

// Replays the run; a pure function of its input (deterministic draws). Throws InputError for inputs out
// of range (clients, workers or slots < 1, negative times, length_low_fraction outside (0, 1]).
ClosedLoopReplay replay_closed_loop(const ClosedLoopReplayInput& in);

}  // namespace gpuplan
