// gpuplan export: scheduler configuration (Slurm, Kueue, Volcano) for a cluster file.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "api/schedule.h"
#include "cli/common.h"
#include "core/output_path.h"
#include "core/error.h"
#include "schedule/cluster_yaml.h"
#include "schedule/export.h"

namespace gpuplan::cli {

int cmd_export(int argc, char** argv) {
  CLI::App app{"Write scheduler configuration that keeps jobs inside NVLink domains: Slurm topology.conf "
               "(block/tree), topology.yaml, slurm.conf and gres.conf lines; Kueue node labels, Topology, "
               "ResourceFlavor; Volcano HyperNodes",
               "gpuplan export"};
  CommonOptions common;
  add_common_options(app, common);
  std::string format, cluster_path, out_dir;
  app.add_option("format", format, "slurm | kueue | volcano")->required();
  app.add_option("--cluster", cluster_path, "Cluster YAML (see examples/clusters/)")->required();
  app.add_option("--output-dir", out_dir, "Write each file into this directory instead of printing them");
  if (int rc = parse_args(app, argc, argv); rc >= 0) return rc;
  return run_guarded([&] {
    if (common.json && !out_dir.empty())
      throw InputError("--output-dir", "give --output-dir (writes the files) or --json (returns them in the "
                                       "document), not both");
    const Catalog catalog = load_catalog(common);
    const schedule::Cluster cluster(schedule::read_cluster_file(cluster_path, catalog_resolver(catalog)));
    const auto files = schedule::export_config(format, cluster, "format");
    if (common.json) {
      nlohmann::json fs = nlohmann::json::array();
      for (const auto& f : files) fs.push_back({{"name", f.name}, {"text", f.text}});
      print_json("export", {{"format", format}, {"cluster", cluster.spec().name}, {"files", fs}});
      return kExitOk;
    }
    if (!out_dir.empty()) {
      check_output_dir(out_dir, "--output-dir");
      std::filesystem::create_directories(out_dir);
      for (const auto& f : files) {
        const auto path = std::filesystem::path(out_dir) / f.name;
        check_output_file(path.string(), "--output-dir", std::vector<std::string>(argv + 1, argv + argc));
        std::ofstream o(path);
        if (!o) throw InputError("--output-dir", "cannot write '" + path.string() + "'");
        o << f.text;
        std::cout << "wrote " << path.string() << "\n";
      }
      return kExitOk;
    }
    for (size_t i = 0; i < files.size(); ++i)
      std::cout << (i ? "\n" : "") << "# ==> " << files[i].name << " <==\n" << files[i].text;
    return kExitOk;
  });
}

}  // namespace gpuplan::cli
