#pragma once
// A job of a scheduling trace: when it arrives, how long it runs when placed well, how many GPUs, and
// how they are coupled.
#include <string>

namespace gpuplan::schedule {

enum class JobKind { trace, training, finetune, inference };

const char* to_string(JobKind k);

struct Job {
  int id = 0;
  double submit_s = 0;    // arrival, seconds from the trace's start
  double duration_s = 0;  // run time with every group placed in the fewest NVLink domains
  int gpus = 1;
  // GPUs of one tightly coupled group (TP x EP, or the whole job for data-parallel trace jobs); divides
  // gpus. A group that spans more NVLink domains than it needs slows the job (slowdown.h).
  int group_gpus = 1;
  JobKind kind = JobKind::trace;
  bool preemptible = false;  // inference services that training may pre-empt
};

}  // namespace gpuplan::schedule
