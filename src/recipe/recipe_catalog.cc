#include "recipe/recipe_catalog.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "core/embedded_data.h"
#include "core/error.h"
#include "core/suggest.h"
#include "core/yaml_tree.h"

namespace gpuplan {

namespace {

struct BuiltinRecipes {
  std::map<std::string, RecipeTable> tables;
  std::vector<Recipe> all;
};

const BuiltinRecipes& builtin() {
  static const BuiltinRecipes b = [] {
    BuiltinRecipes out;
    for (const auto& f : embedded_data_files()) {
      const std::string path(f.path);
      if (path.rfind("recipes/", 0) != 0) continue;
      out.tables.emplace(path, load_recipe_table(embedded_yaml(f), path));
    }
    std::set<std::string> taken;
    for (const auto& [path, t] : out.tables)
      for (Recipe r : t.recipes) {
        const bool stated = !r.name.empty();
        std::string n = stated ? r.name : default_recipe_name(r);
        if (taken.count(n)) {
          if (stated) throw InputError(r.where + ".name", "'" + n + "' is taken by another recipe: names are unique");
          if (n.find('@') == std::string::npos) n += "@" + r.valid_from;
          for (int i = 2; taken.count(n); ++i) n = fmt::format("{}#{}", n.substr(0, n.find('#')), i);
        }
        taken.insert(n);
        r.name = n;
        out.all.push_back(std::move(r));
      }
    return out;
  }();
  return b;
}

}  // namespace

const RecipeTable& builtin_recipe_table(const std::string& path) {
  const auto& t = builtin().tables;
  if (const auto it = t.find(path); it != t.end()) return it->second;
  throw InputError(path, "not embedded in this build");
}

std::vector<const RecipeTable*> builtin_recipe_tables(const std::string& schema) {
  std::vector<const RecipeTable*> out;
  for (const auto& [path, t] : builtin().tables)
    if (t.schema == schema) out.push_back(&t);
  return out;
}

const std::vector<Recipe>& builtin_recipes() { return builtin().all; }

const Recipe* find_recipe(const std::string& name) {
  for (const Recipe& r : builtin_recipes())
    if (r.name == name) return &r;
  return nullptr;
}

const Recipe& recipe_by_name(const std::string& name, const std::string& field) {
  if (const Recipe* r = find_recipe(name)) return *r;
  // The closest names: those containing the name, else the nearest by edit distance.
  std::vector<std::string> close;
  for (const Recipe& r : builtin_recipes())
    if (!name.empty() && r.name.find(name) != std::string::npos && close.size() < 8) close.push_back(r.name);
  if (close.empty()) {
    std::vector<std::pair<int, std::string>> by;
    for (const Recipe& r : builtin_recipes()) by.emplace_back(edit_distance(name, r.name), r.name);
    std::sort(by.begin(), by.end());
    for (size_t i = 0; i < by.size() && i < 5; ++i) close.push_back(by[i].second);
  }
  const std::string hint = fmt::format("; close names: {} (gpuplan recipe list names them all)", fmt::join(close, ", "));
  throw InputError(field, "unknown recipe '" + echo_name(name) + "'" + hint);
}

}  // namespace gpuplan
