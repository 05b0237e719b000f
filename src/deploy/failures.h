#pragma once
// Failure rates per component class, with the unit each scales with and what a failure takes out of
// service (blast radius). Defaults: data/deploy/failures.yaml (Llama 3 paper, Table 5).
#include <string>
#include <vector>

namespace gpuplan::deploy {

enum class RateUnit { gpu, node };         // what the rate is counted per
enum class Blast { none, node, domain };   // what one failure drains

struct FailureClass {
  std::string name;                 // gpu, hbm, network, nic, host, software, nvlink
  RateUnit per = RateUnit::gpu;
  double rate_per_hour = 0;         // failures per unit-hour
  Blast blast = Blast::node;
  double repair_s = 0;              // time until the drained hardware is back (no spares)
  bool multinode_domains_only = false;  // applies only where an NVLink domain spans several nodes
  std::string source;
};

struct FailureModel {
  std::vector<FailureClass> classes;
  double restart_s = 600;                      // interruption -> training again (spares ready)
  double write_bytes_per_s_per_gpu = 122.07e6; // checkpoint write bandwidth share per GPU
  double checkpoint_bytes_per_param = 14;
  std::string source;
  // Failures per GPU-hour of all classes on an 8-GPU-node HGX cluster (the reference shape).
  double reference_rate_per_gpu_hour(int gpus_per_node = 8) const;
  // A copy with every class rate scaled so the reference per-GPU rate is 1 / mtbf_h.
  FailureModel with_gpu_mtbf_hours(double mtbf_h) const;
};

// Parses a failures file (schema gpuplan.failures/v1). Throws InputError naming the key path.
FailureModel parse_failure_model(const std::string& yaml_text, const std::string& origin);
// The embedded defaults (data/deploy/failures.yaml).
const FailureModel& builtin_failure_model();

std::string to_string(Blast b);

}  // namespace gpuplan::deploy
