// A closed-loop run replayed request by request (src/inference/closed_loop_replay.h): every request
// on its own path within the slots, the opening burst through the prefill pool, Little's law for the
// mean when the slots are full, the median between the two, determinism and the range checks.
#include "inference/closed_loop_replay.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "core/error.h"

namespace gpuplan {
namespace {

ClosedLoopReplayInput dynamo_like() {
  ClosedLoopReplayInput in;
  in.clients = 27;
  in.requests_per_client = 10;
  in.decode_workers = 3;
  in.slots_per_worker = 8;
  in.prefill_per_prompt_s = 1.0 / 70;
  in.first_token_s = 0.15;
  in.decode_step_s = 0.011;
  in.decode_life_s = 10.5;
  in.length_low_fraction = 0.8;
  return in;
}

TEST(ClosedLoopReplay, WithinTheSlotsEveryRequestTakesItsOwnPath) {
  ClosedLoopReplayInput in = dynamo_like();
  in.clients = 24;
  in.decode_workers = 1;  // one worker of 24 slots: every request finds one free
  in.slots_per_worker = 24;
  in.prefill_per_prompt_s = 0;
  const ClosedLoopReplay r = replay_closed_loop(in);
  EXPECT_EQ(r.requests, 240);
  EXPECT_NEAR(r.ttft_median_s, 0.15, 1e-9);
  EXPECT_NEAR(r.ttft_mean_s, 0.15, 1e-9);
  // Three workers of 8 in turn: a returning client's prompt goes to the next worker whether or not
  // it has a free slot, so some wait even with as many clients as slots; never below the own path.
  in.decode_workers = 3;
  in.slots_per_worker = 8;
  const ClosedLoopReplay rr = replay_closed_loop(in);
  EXPECT_NEAR(rr.ttft_median_s, 0.15, 1e-9);
  EXPECT_GE(rr.ttft_mean_s, 0.15 - 1e-9);
}

// One request per client, all sent at once: the k-th prompt starts k prefill spacings after the
// first, so the TTFTs are 0.15 + k x 0.02 s for k = 0..8 and the median is the fifth, k = 4.
TEST(ClosedLoopReplay, TheOpeningBurstQueuesAtThePrefillPool) {
  ClosedLoopReplayInput in = dynamo_like();
  in.clients = 9;
  in.requests_per_client = 1;
  in.prefill_per_prompt_s = 0.02;
  const ClosedLoopReplay r = replay_closed_loop(in);
  EXPECT_NEAR(r.ttft_median_s, 0.15 + 4 * 0.02, 1e-12);
  EXPECT_NEAR(r.ttft_mean_s, 0.15 + 4 * 0.02, 1e-12);
}

// Slots full: the deployment completes S sequences per decode lifetime, so over a long run each
// client's cycle is clients / S lifetimes and the mean TTFT approaches (clients - S) / S lifetimes.
TEST(ClosedLoopReplay, FullSlotsMeanFollowsLittlesLaw) {
  ClosedLoopReplayInput in = dynamo_like();
  in.clients = 30;
  in.requests_per_client = 400;
  in.first_token_s = 0.05;
  in.prefill_per_prompt_s = 0.001;
  in.decode_step_s = 0.0;
  const ClosedLoopReplay r = replay_closed_loop(in);
  const double expected = (30.0 - 24.0) / 24.0 * in.decode_life_s;
  EXPECT_NEAR(r.ttft_mean_s, expected, 0.1 * expected);
}

// A few clients beyond the slots: most requests meet a free slot, the rest wait a good part of a
// lifetime; the median lies between one request's own path and the mean.
TEST(ClosedLoopReplay, MedianLiesBetweenTheOwnPathAndTheMean) {
  const ClosedLoopReplay r = replay_closed_loop(dynamo_like());
  EXPECT_GT(r.ttft_median_s, 0.15);
  EXPECT_LT(r.ttft_median_s, r.ttft_mean_s);
  EXPECT_GT(r.ttft_mean_s, 0.5);
}

TEST(ClosedLoopReplay, MoreSlotsNeverRaiseTheMean) {
  ClosedLoopReplayInput in = dynamo_like();
  double prev = 1e30;
  for (long long s : {4, 6, 8, 9, 12}) {
    in.slots_per_worker = s;
    const ClosedLoopReplay r = replay_closed_loop(in);
    EXPECT_LE(r.ttft_mean_s, prev * (1 + 1e-9)) << s;
    prev = r.ttft_mean_s;
  }
}

TEST(ClosedLoopReplay, SameInputSameAnswer) {
  const ClosedLoopReplay a = replay_closed_loop(dynamo_like()), b = replay_closed_loop(dynamo_like());
  EXPECT_EQ(a.ttft_median_s, b.ttft_median_s);
  EXPECT_EQ(a.ttft_mean_s, b.ttft_mean_s);
}

TEST(ClosedLoopReplay, OutOfRangeNamesTheField) {
  auto field = [](ClosedLoopReplayInput in) -> std::string {
    try {
      replay_closed_loop(in);
    } catch (const InputError& e) {
      return e.field();
    }
    return "";
  };
  ClosedLoopReplayInput in = dynamo_like();
  in.clients = 0;
  EXPECT_EQ(field(in), "clients");
  in = dynamo_like();
  in.requests_per_client = 0;
  EXPECT_EQ(field(in), "requests_per_client");
  in = dynamo_like();
  in.decode_workers = 0;
  EXPECT_EQ(field(in), "decode_workers");
  in = dynamo_like();
  in.slots_per_worker = 0;
  EXPECT_EQ(field(in), "slots_per_worker");
  in = dynamo_like();
  in.decode_life_s = -1;
  EXPECT_EQ(field(in), "decode_life_s");
  in = dynamo_like();
  in.first_token_s = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(field(in), "first_token_s");
  in = dynamo_like();
  in.length_low_fraction = 0;
  EXPECT_EQ(field(in), "length_low_fraction");
  in.length_low_fraction = 1.5;
  EXPECT_EQ(field(in), "length_low_fraction");
}

TEST(ClosedLoopReplay, RunsBeyondTheBoundAreNotReplayed) {
  ClosedLoopReplayInput in = dynamo_like();
  in.clients = kClosedLoopReplayMaxRequests;
  EXPECT_EQ(replay_closed_loop(in).requests, 0);
}

}  // namespace
}  // namespace gpuplan
