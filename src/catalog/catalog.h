#pragma once
// The catalog: accelerators, systems, networks and fitted efficiencies. Built from the embedded
// data/catalog/*.yaml, then overlaid by user files (--catalog DIR or $GPUPLAN_CATALOG): an entry with
// the same name replaces the built-in one.
#include <string>
#include <vector>

#include "catalog/accelerator.h"
#include "catalog/efficiency.h"
#include "catalog/error_band.h"
#include "catalog/network.h"
#include "catalog/serving_engine.h"

namespace YAML {
class Node;
}
#include "catalog/system.h"

namespace gpuplan {

class Catalog {
 public:
  // The built-in catalog alone (parsed once; copy it to extend it).
  static const Catalog& builtin();
  // Built-in, then every *.yaml in each directory of `overlay_dirs` (in order). Throws InputError on
  // malformed files, unknown keys, out-of-range figures or dangling references.
  static Catalog load(const std::vector<std::string>& overlay_dirs);
  // Parses one YAML document (any of the top-level lists accelerators/systems/networks/efficiencies)
  // and merges it; `origin` names it in errors and provenance.
  void merge_yaml(const std::string& text, const std::string& origin);
  // Checks cross-references (system -> accelerator, networks; efficiency per generation).
  void check() const;

  const std::vector<Accelerator>& accelerators() const { return accelerators_; }
  const std::vector<System>& systems() const { return systems_; }
  const std::vector<Network>& networks() const { return networks_; }
  const std::vector<Efficiency>& efficiencies() const { return efficiencies_; }
  // Error bands per (kind, generation) from data/catalog/error_bands.yaml (find_band() looks one up).
  const std::vector<ErrorBand>& error_bands() const { return error_bands_; }
  // How two systems' errors on one question move together (the same file's `error_band_correlation`;
  // 0 without one: independent).
  const BandCorrelation& band_correlation() const { return band_correlation_; }
  // Serving engines from data/catalog/serving_engines.yaml, in file order (the default entry included).
  const std::vector<ServingEngine>& serving_engines() const { return serving_engines_; }
  // The first engine whose match list fits `framework` (case-insensitive), or null.
  const ServingEngine* find_serving_engine(const std::string& framework) const;
  // The `default` entry (the MTP acceptance of engines that do not state their own); InputError when
  // the catalog has none (the built-in one always has).
  const ServingEngine& default_serving_engine() const;

  // Lookups by name or alias (case- and punctuation-insensitive). Unknown -> InputError naming
  // `field` with a "did you mean".
  const Accelerator& accelerator(const std::string& name, const std::string& field = "accelerator") const;
  const System& system(const std::string& name, const std::string& field = "system") const;
  const Network& network(const std::string& name, const std::string& field = "network") const;
  // Efficiency of a generation; falls back to the "default" entry when the generation has none.
  const Efficiency& efficiency(const std::string& generation) const;
  // Replaces (or adds) the efficiency entry of a generation; used by calibrate and probe.
  void set_efficiency(const Efficiency& e);

  const Accelerator* find_accelerator(const std::string& name) const;
  const System* find_system(const std::string& name) const;
  // The first system (in catalog order) built from the accelerator: what its bare name runs on; null: none.
  const System* first_system_of(const std::string& accelerator) const;
  const Network* find_network(const std::string& name) const;

 private:
  // merge_yaml of a parsed document, with separate names for errors (`where`) and provenance (`origin`,
  // e.g. "built-in").
  void merge_document(const YAML::Node& root, const std::string& where, const std::string& origin);

  std::vector<Accelerator> accelerators_;
  std::vector<System> systems_;
  std::vector<Network> networks_;
  std::vector<Efficiency> efficiencies_;
  std::vector<ErrorBand> error_bands_;
  BandCorrelation band_correlation_;
  std::vector<ServingEngine> serving_engines_;
};

}  // namespace gpuplan
