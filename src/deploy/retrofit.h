#pragma once
// What a site has to change to hold a deployment: positions by cooling kind and power, liquid positions
// and CDU capacity to add, facility water flow from the heat, feed to add, floor loading per position,
// the scale-out fabric's switch racks, and the order of magnitude of the liquid retrofit cost.
// Pure; the defaults are data/deploy/retrofit.yaml (each figure sourced or an assumption).
#include <map>
#include <string>
#include <vector>

#include "deploy/site.h"

namespace gpuplan::deploy {

struct RetrofitDefaults {
  std::map<std::string, double> rack_weight_kg;      // by system name (rack-scale systems)
  std::map<std::string, std::string> rack_weight_source;
  double rack_footprint_m2 = 0.72;
  double water_delta_t_k = 10;
  double liquid_retrofit_usd_per_kw = 1000;
  double circuit_voltage_v = 415, circuit_current_a = 60, circuit_derating = 0.8;
  int feed_redundancy = 2;  // 2N
  double circuit_w() const;  // sqrt(3) x V x A x derating
};
RetrofitDefaults builtin_retrofit_defaults();

// The deployment's network as the fabric planner sizes it (0 when not planned).
struct NetworkLoad {
  long long switch_rack_units = 0;
  double power_w = 0;                // switches and optics
};

struct PositionNeed {
  Cooling cooling = Cooling::air;
  double max_position_w = 0;         // the hungriest position of this kind the deployment needs
  int needed = 0;                    // positions, at the densest the site's positions allow (else full racks)
  int available = 0;                 // site positions of this kind that take at least one unit
  int to_add() const { return needed > available ? needed - available : 0; }
  int circuits_per_position = 0;   // rack power circuits (PDU feeds), with redundancy
};

struct FloorLoad {
  std::string system;
  double rack_kg = 0;
  double kg_per_m2 = 0;
  std::string source;
};

struct Retrofit {
  std::vector<PositionNeed> positions;     // air, liquid (those the deployment uses)
  double liquid_heat_w = 0;                // heat the CDUs must remove
  double cdu_capacity_w = 0;               // on the site now (0: not given)
  double cdu_to_add_w = 0;
  double water_flow_kg_per_s = 0;          // facility water through the CDUs at water_delta_t_k
  double water_delta_t_k = 0;
  double feed_needed_w = 0;                // facility feed with headroom (the planned network replaces the
                                           // units' flat switch share)
  double feed_to_add_w = 0;                // 0 when the site has no feed limit or enough
  double circuit_w = 0;                    // what one rack circuit carries
  int circuits = 0;                        // rack power circuits in total, with redundancy
  int switch_racks = 0;
  double switch_racks_w = 0;
  std::vector<FloorLoad> floor;            // rack-scale systems with a sourced weight
  double liquid_retrofit_usd = 0;          // order of magnitude, assumption-based
  std::vector<std::string> changes;        // one line per thing to change
};

// `groups`: units of each system; `site`: positions, CDUs and feed (an empty position list means
// nothing is known about positions: every position is to add).
Retrofit plan_retrofit(const std::vector<std::pair<UnitPower, int>>& groups, const SiteSpec& site,
                       const NetworkLoad& network, const RetrofitDefaults& defaults);

}  // namespace gpuplan::deploy
