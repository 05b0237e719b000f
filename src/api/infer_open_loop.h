#pragma once
// `gpuplan infer --requests-per-s R [--peak-factor P]`: a steady demand on one system under open-loop
// Poisson arrivals (inference/open_loop.h) in place of a closed loop of clients: the purchase `size`
// makes for it on that system (the deployment among the chooser's best on each size, and the replicas
// of it whose chance of meeting the SLA under the model's error reaches --confidence: one demand, one
// answer through either command), and one replica's TTFT and TPOT at p50 and p99 at its share of the
// rate. Each figure carries its 80% band under the model's error, with the chance the replica keeps up
// and meets the SLA, drawn as `size` draws them (sizing/odds.h). Without --requests-per-s, infer as ever.
#include <CLI/CLI.hpp>

#include "api/infer.h"
#include "api/open_loop_lengths.h"

namespace gpuplan::api {

struct InferOpenLoopRequest : InferRequest {
  double requests_per_s = 0;  // 0: closed loop (infer as ever)
  double peak_factor = 1;
  OpenLoopLengths lengths;  // --isl-max, and infer's --length-low, as size reads them
  double confidence = 0.9;  // P(meets SLA) the replicas bought must reach, as size's --confidence
  int draws = 1000;         // Monte Carlo draws of the model's error (the figures' bands and odds)
  long long seed = 1;
};

// infer's options and --requests-per-s, --peak-factor, --isl-max, --confidence, --draws, --seed (--length-low
// is infer's).
void add_infer_open_loop_options(CLI::App& app, InferOpenLoopRequest& req);

// The open-loop answer when --requests-per-s is given, else infer().
int infer_open_loop(const Catalog& catalog, InferOpenLoopRequest req, Output& output, const Session* session = nullptr);

}  // namespace gpuplan::api
