#include "search/objective.h"

namespace gpuplan {

std::string_view to_string(Objective o) {
  switch (o) {
    case Objective::tokens_per_s: return "tokens_per_s";
    case Objective::cost: return "cost";
  }
  return "tokens_per_s";
}

double usd_per_million_tokens(const TrainingResult& r, double usd_per_gpu_hour) {
  if (r.tokens_per_s_per_gpu <= 0 || usd_per_gpu_hour <= 0) return 0;
  return usd_per_gpu_hour / 3600.0 / r.tokens_per_s_per_gpu * 1e6;
}

double objective_score(const TrainingResult& r, Objective o, const ObjectiveContext& ctx) {
  switch (o) {
    case Objective::tokens_per_s: return r.tokens_per_s;
    case Objective::cost: return -usd_per_million_tokens(r, ctx.usd_per_gpu_hour);
  }
  return r.tokens_per_s;
}

}  // namespace gpuplan
