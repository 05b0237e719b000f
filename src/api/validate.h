#pragma once
// gpuplan validate: score the performance models against published measurements.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "api/options.h"
#include "api/output.h"
#include "catalog/catalog.h"
#include "core/error.h"

namespace gpuplan::api {

// The error for a dataset of which no row could be scored (header only, or every row skipped):
// names the file, the row count and the first skip reason, if any.
InputError nothing_scored(const std::string& dataset, size_t rows, const std::string& first_skip_reason);

// The options of `gpuplan validate` (the CLI, run() and the faces over it share them).
struct ValidateRequest : RequestBase {
  std::string dataset;
  bool verbose = false;
};

// Defines the options (names, ranges, help) on `app`, bound to `req`.
void add_validate_options(CLI::App& app, ValidateRequest& req);

// Evaluates the request: the document, or the terminal text, into `out`. Returns 0, or 3 when
// what was asked for does not fit; InputError on bad input.
int validate(const Catalog& catalog, ValidateRequest req, Output& output);

}  // namespace gpuplan::api
