#pragma once
// A published row's plan with blank cells: the authors ran some setting, usually their best, so each
// blank field is taken from the fastest plan the search's space allows under the fields the row states.
#include <optional>
#include <string>
#include <vector>

#include "model/model.h"
#include "physics/hardware.h"
#include "plan/plan.h"

namespace gpuplan {

// Which plan fields the row left blank (true = blank, to be searched).
struct BlankFields {
  bool tp = false, pp = false, vp = false, cp = false, ep = false, mbs = false, recompute = false;
  bool sequence_parallel_available = true;  // false: the framework of the row had none (TP alone)
  int stated_dp = 0;  // the row's dp when stated (constrains tp x pp x cp), 0 when blank
  // Whether candidates with EP > 1 overlap the expert all-to-all, as the row's framework runs them
  // (training/expert_overlap.h: the rule turns on EP > 1 alone), so candidates are ranked as they are then
  // timed; unset: base's setting.
  std::optional<bool> ep_overlap;
  bool any() const { return tp || pp || vp || cp || ep || mbs || recompute; }
};

struct BlankFill {
  bool found = false;
  TrainingPlan plan;          // base with the blank fields filled (dp derived)
  bool fits_memory = true;    // false: no candidate fitted by gpuplan's estimate; the closest to fitting was taken
  std::size_t evaluated = 0;  // candidates timed
  std::string note;           // what was chosen, in words; or why nothing divides
};

// Fills the blank fields of `base` with the plan of least step time among the search space's
// candidates (src/search: plan_space, filter) that divide the model, GPUs and batch and fit in
// memory (without the reserve for first runs: the published run fitted); when none fits by gpuplan's
// estimate, the one closest to fitting; stated fields, ZeRO, SP and overlap settings stay as `base` has them (SP follows TP when TP
// is blank). Pure; microseconds per candidate.
BlankFill fill_blank_plan(const ModelArch& model, const Hardware& hw, const TrainingWorkload& workload,
                          const TrainingPlan& base, const BlankFields& blanks);

}  // namespace gpuplan
