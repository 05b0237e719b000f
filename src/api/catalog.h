#pragma once
// gpuplan catalog list [accelerators|systems|networks] | gpuplan catalog show NAME: the catalog
// (built-in plus overlays) as tables or one entry with each figure's unit and source.
#include <CLI/CLI.hpp>

#include <string>

#include "api/options.h"
#include "api/output.h"
#include "catalog/catalog.h"

namespace gpuplan::api {

// The options of `gpuplan catalog` (the CLI, run() and the faces over it share them).
struct CatalogRequest : RequestBase {
  bool list = false;  // the `list` sub-command ran; else `show`
  std::string kind;   // list: accelerators, systems or networks (empty: all three)
  std::string name;   // show: the entry
};

// Defines the sub-commands and their arguments on `app`, bound to `req`.
void add_catalog_options(CLI::App& app, CatalogRequest& req);

// The tables or the entry: the document, or the terminal text, into `output`. InputError (KIND or
// NAME) for an unknown kind or name.
int catalog(const Catalog& catalog, CatalogRequest req, Output& output);

}  // namespace gpuplan::api
