// Cluster files (gpuplan.cluster/v1), built into a cluster and exported to every scheduler format.
#include "fuzz_common.h"
#include "schedule/cluster.h"
#include "schedule/cluster_yaml.h"
#include "schedule/export.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpuplan::fuzz::expect_clean([&] {
    using namespace gpuplan::schedule;
    // A fixed shape for every system name (the CLI asks the catalog).
    const SystemResolver resolve = [](const std::string&, const std::string&) {
      return std::optional<SystemShape>(SystemShape{4, 18, 72});
    };
    const ClusterSpec spec = parse_cluster_yaml(gpuplan::fuzz::text_of(data, size), "fuzz.yaml", resolve);
    if (spec.groups.size() > 8) return;  // exports are linear in nodes; keep one input fast
    long long gpus = 0;
    for (const auto& g : spec.groups) gpus += 1LL * g.count * g.nodes_per_unit * g.gpus_per_node;
    if (gpus > 100000) return;
    const Cluster c(spec);
    export_slurm(c);
    export_kueue(c);
    export_volcano(c);
  });
  return 0;
}
