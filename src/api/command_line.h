#pragma once
// An API command bound to a command line's option definitions, for a face that parses its own
// arguments (the CLI): the command's options are added to the face's CLI11 app over a fresh request,
// and after the parse the request is evaluated with the command's own function. The commands and
// their evaluations are those of run()'s table (api.cc): every face takes its list from there.
#include <CLI/CLI.hpp>

#include <memory>
#include <string_view>

#include "api/options.h"
#include "api/output.h"
#include "catalog/catalog.h"

namespace gpuplan::api {

class BoundCommand {
 public:
  virtual ~BoundCommand() = default;
  // The request the parse fills (RequestBase::given_options is recorded into it).
  virtual RequestBase& request() = 0;
  // Whether the evaluation reads the catalog (every command but `model`).
  virtual bool reads_catalog() const = 0;
  // Evaluates the parsed request: text and notes to `out`'s streams, the document into out.doc.
  // `catalog` may be null where reads_catalog() is false. Returns the exit code (0, or 3: does not fit).
  virtual int evaluate(const Catalog* catalog, Output& out) = 0;
};

// Adds `command`'s options to `app`, bound to a fresh request. Throws InputError ("command") for a
// name commands() does not list.
std::unique_ptr<BoundCommand> bind_command(std::string_view command, CLI::App& app);

}  // namespace gpuplan::api
