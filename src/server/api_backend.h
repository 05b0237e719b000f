#pragma once
// The server's backend in production: the one API (src/api) over one shared Session.
#include "api/api.h"
#include "server/server.h"

namespace gpuplan::server {

// Commands the server does not take from the web: doctor and probe inspect and load the server's own
// machine, export writes files, report has its own path (/report/<kind>).
bool served_over_http(std::string_view command);

// Calls api::run / api::report_html on `session`, which must outlive the server.
Backend api_backend(const api::Session& session);

}  // namespace gpuplan::server
