#pragma once
// Who may use `gpuplan serve`: requests addressed to this machine's loopback names (a web page whose
// DNS name was rebound to 127.0.0.1 sends its own name as Host), sent by the server's own pages or by
// a client that is no browser (a page of another origin announces itself with Origin or
// Sec-Fetch-Site), and, when the server has a token, carrying it. Pure functions.
#include <optional>
#include <string>
#include <string_view>

namespace gpuplan::server {

// True for "localhost", a dotted-quad IPv4 literal 127.x.y.z (four decimal parts of 0-255, no
// leading zeros), "::1" and "[::1]": names of this machine's loopback.
bool is_loopback_host(std::string_view host);

// A Host header addressed to a loopback server on `port`: a loopback name with ":port" (the port may
// be left out only when it is 80).
bool is_loopback_host_header(std::string_view host, int port);

// Why a request's page may not call the API (nullopt: it may): an Origin other than the server's own
// ("http://" + the Host header), or a Sec-Fetch-Site other than same-origin or none (a user's own
// navigation). A request with neither header comes from a client that is no browser.
std::optional<std::string> foreign_page(std::string_view origin, std::string_view sec_fetch_site,
                                        std::string_view host);

// `given` equals `token`, compared in time independent of where they differ.
bool token_matches(std::string_view given, std::string_view token);

// The value of cookie `name` in a Cookie header ("a=1; b=2"), empty when absent.
std::string cookie_value(std::string_view cookie_header, std::string_view name);

}  // namespace gpuplan::server
