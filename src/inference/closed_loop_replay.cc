#include "inference/closed_loop_replay.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <queue>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"

namespace gpuplan {
namespace {

// splitmix64: a fixed, portable stream of draws (std's distributions differ between libraries).
struct Draws {
  std::uint64_t state;
  double unit() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return double(z >> 11) * 0x1.0p-53;
  }
};

enum class Kind { arrive, ready, finish };
struct Event {
  double t;
  long long order;  // ties: first pushed, first served
  Kind kind;
  long long client;
  int worker;
  bool operator>(const Event& o) const { return t != o.t ? t > o.t : order > o.order; }
};

void check(const ClosedLoopReplayInput& in) {
  if (in.clients < 1) throw InputError("clients", fmt::format("must be at least 1, got {}", in.clients));
  if (in.requests_per_client < 1)
    throw InputError("requests_per_client", fmt::format("must be at least 1, got {}", in.requests_per_client));
  if (in.decode_workers < 1)
    throw InputError("decode_workers", fmt::format("must be at least 1, got {}", in.decode_workers));
  if (in.slots_per_worker < 1)
    throw InputError("slots_per_worker", fmt::format("must be at least 1, got {}", in.slots_per_worker));
  const struct {
    const char* name;
    double v;
  } times[] = {{"prefill_per_prompt_s", in.prefill_per_prompt_s},
               {"first_token_s", in.first_token_s},
               {"decode_step_s", in.decode_step_s},
               {"decode_life_s", in.decode_life_s}};
  for (const auto& x : times)
    if (!(x.v >= 0) || !std::isfinite(x.v))
      throw InputError(x.name, fmt::format("must be a finite time >= 0 s, got {}", x.v));
  if (!(in.length_low_fraction > 0 && in.length_low_fraction <= 1))
    throw InputError("length_low_fraction", fmt::format("must be in (0, 1], got {}", in.length_low_fraction));
}

}  // namespace

ClosedLoopReplay replay_closed_loop(const ClosedLoopReplayInput& in) {
  check(in);
  ClosedLoopReplay out;
  if (in.clients > kClosedLoopReplayMaxRequests / in.requests_per_client) return out;  // no overflow
  const long long total = in.clients * static_cast<long long>(in.requests_per_client);

  Draws draws{in.seed};
  const double low = in.length_low_fraction, mean = 0.5 * (1.0 + low);
  auto life = [&] { return in.decode_life_s * (low + (1.0 - low) * draws.unit()) / mean; };

  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
  long long order = 0;
  auto push = [&](double t, Kind k, long long client, int worker = 0) { events.push({t, order++, k, client, worker}); };

  std::vector<double> sent_at(static_cast<size_t>(in.clients), 0.0);
  std::vector<int> done(static_cast<size_t>(in.clients), 0);
  std::vector<long long> active(static_cast<size_t>(in.decode_workers), 0);
  std::vector<std::deque<long long>> waiting(static_cast<size_t>(in.decode_workers));
  std::vector<double> ttft;
  ttft.reserve(static_cast<size_t>(total));
  double prefill_free = 0;
  long long next_worker = 0;

  auto start_decode = [&](long long client, int worker, double first_token_at) {
    ++active[size_t(worker)];
    ttft.push_back(first_token_at - sent_at[size_t(client)]);
    push(first_token_at + life(), Kind::finish, client, worker);
  };

  for (long long k = 0; k < in.clients; ++k) push(0.0, Kind::arrive, k);
  while (!events.empty()) {
    const Event e = events.top();
    events.pop();
    switch (e.kind) {
      case Kind::arrive: {
        // The prefill pool takes prompts first come, first served, one every prefill_per_prompt_s.
        sent_at[size_t(e.client)] = e.t;
        const double start = std::max(e.t, prefill_free);
        prefill_free = start + in.prefill_per_prompt_s;
        push(start + in.first_token_s, Kind::ready, e.client);
        break;
      }
      case Kind::ready: {
        const int w = static_cast<int>(next_worker++ % in.decode_workers);
        if (active[size_t(w)] < in.slots_per_worker) start_decode(e.client, w, e.t);
        else waiting[size_t(w)].push_back(e.client);
        break;
      }
      case Kind::finish: {
        const size_t w = size_t(e.worker);
        --active[w];
        if (!waiting[w].empty()) {
          const long long next = waiting[w].front();
          waiting[w].pop_front();
          start_decode(next, e.worker, e.t + in.decode_step_s);
        }
        if (++done[size_t(e.client)] < in.requests_per_client) push(e.t, Kind::arrive, e.client);
        break;
      }
    }
  }
  out.requests = static_cast<long long>(ttft.size());
  double sum = 0;
  for (double x : ttft) sum += x;
  out.ttft_mean_s = sum / double(ttft.size());
  const size_t mid = ttft.size() / 2;
  std::nth_element(ttft.begin(), ttft.begin() + long(mid), ttft.end());
  out.ttft_median_s = ttft[mid];
  if (ttft.size() % 2 == 0) out.ttft_median_s = 0.5 * (out.ttft_median_s + *std::max_element(ttft.begin(), ttft.begin() + long(mid)));
  return out;
}

}  // namespace gpuplan
