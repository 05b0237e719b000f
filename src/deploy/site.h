#pragma once
// Site fit: the IT and facility power of system units against a site's rack positions (power and
// cooling per position, CDU capacity), floor positions and total feed, with the headroom planners
// keep. Site files: examples/sites/*.yaml, docs/deploy.md. Pure functions apart from the parsers.
#include <string>
#include <vector>

#include "catalog/system.h"
#include "memory/violation.h"

namespace gpuplan::deploy {

// A kind of rack position on the floor.
struct PositionGroup {
  std::string name;
  int count = 0;                 // floor positions of this kind
  Cooling cooling = Cooling::air;
  double max_w = 0;              // power and cooling per position
  double cdu_capacity_w = 0;     // liquid: heat the group's CDUs remove in total (0: no limit given)
};

struct SiteSpec {
  std::string name = "site";
  double total_power_w = 0;      // facility feed (IT x PUE); 0: no limit
  double pue = 1.3;
  double headroom = 0.25;        // share of the feed kept unused
  std::vector<PositionGroup> positions;
  // Shares and sizes (defaults: data/deploy/site.yaml).
  double scaleout_switch_share = 0.05;  // IT power of leaf/spine switches, share of unit power
  double storage_share = 0.03;
  double nic_w = 25;
  int rack_units_usable = 36;
  int default_node_rack_units = 8;

  double usable_facility_w() const { return total_power_w * (1.0 - headroom); }
};

// Parses data/deploy/site.yaml (the defaults) and a user site file on top of them. InputError names
// the key path ("site.yaml: positions[1].max_kw: ...").
SiteSpec builtin_site_defaults();
SiteSpec parse_site_yaml(const std::string& text, const std::string& origin, const SiteSpec& defaults);
SiteSpec read_site_file(const std::string& path, const SiteSpec& defaults);

// What the catalog says about one system, flattened (the core needs no catalog).
struct SystemPowerInput {
  std::string name, display_name;
  int gpus_per_node = 8, nodes = 1;
  double power_w = 0;            // whole unit at full load
  double gpu_tdp_w = 0;
  Cooling cooling = Cooling::air;
  int rack_units = 0;            // 0: unknown
};

// IT power of one unit by part, and of the scale-out switches and storage it implies.
struct UnitPower {
  std::string system, display_name;
  bool unit_is_rack = false;     // NVL72: the unit is a rack; HGX: nodes stack into a rack
  int gpus = 0;                  // per unit
  Cooling cooling = Cooling::air;
  double gpu_w = 0, nic_w = 0, host_w = 0;   // host: CPUs, memory, fans, NVSwitch, the rest
  double switch_w = 0, storage_w = 0;        // outside the unit, its share
  int units_per_rack = 1;        // by rack space
  double unit_w() const { return gpu_w + nic_w + host_w; }
  double it_w() const { return unit_w() + switch_w + storage_w; }
  double rack_w() const { return unit_w() * units_per_rack; }
};
UnitPower unit_power(const SystemPowerInput& s, const SiteSpec& site);

// Units of one system a position of a group holds (0 when cooling or power rule it out).
int units_per_position(const UnitPower& u, const PositionGroup& g, const SiteSpec& site);

// How many units of one system the site holds on its own: the least of positions (with CDUs) and
// the feed after headroom. Never falls when positions or power grow.
struct SystemCapacity {
  std::string system;
  int by_positions = 0;
  int by_power = 0;              // -1: no feed limit
  int units = 0;
  int gpus = 0;
  std::string limit;             // "positions", "power", "cooling"
  std::string why_not;           // when 0: why
};
SystemCapacity system_capacity(const UnitPower& u, const SiteSpec& site);

// The cluster on the site: each group placed in order, what fits and why the rest does not.
struct GroupFit {
  UnitPower power;
  int requested = 0;
  int placed = 0;
  int racks = 0;                 // positions used
};
struct SiteFit {
  std::vector<GroupFit> groups;
  std::vector<SystemCapacity> capacity;  // per system, the site alone
  double it_w = 0;               // requested cluster, units + switches + storage
  double facility_w = 0;         // it x PUE
  double planned_w = 0;          // facility / (1 - headroom): the feed it needs
  int positions_used = 0;
  std::vector<Violation> violations;  // what does not fit and why
  bool fits() const { return violations.empty(); }
};
SiteFit fit_site(const std::vector<std::pair<UnitPower, int>>& groups, const SiteSpec& site);

// Units of one system a facility budget buys (after PUE and headroom), by power alone.
int units_for_budget(const UnitPower& u, double facility_budget_w, const SiteSpec& site);

}  // namespace gpuplan::deploy
