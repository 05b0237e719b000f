#include "server/access.h"

#include <cctype>

namespace gpuplan::server {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "0".."255" without leading zeros.
bool octet(std::string_view s, int& value) {
  if (s.empty() || s.size() > 3 || (s.size() > 1 && s.front() == '0')) return false;
  value = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  return value <= 255;
}

bool is_ipv4_loopback(std::string_view s) {
  int parts = 0, first = -1;
  while (true) {
    const auto dot = s.find('.');
    int v = 0;
    if (!octet(s.substr(0, dot), v)) return false;
    if (parts == 0) first = v;
    ++parts;
    if (dot == std::string_view::npos) break;
    s.remove_prefix(dot + 1);
  }
  return parts == 4 && first == 127;
}

}  // namespace

bool is_loopback_host(std::string_view host) {
  const std::string h = lower(host);
  return h == "localhost" || h == "::1" || h == "[::1]" || is_ipv4_loopback(h);
}

bool is_loopback_host_header(std::string_view host, int port) {
  std::string_view name = host, port_text;
  if (!host.empty() && host.front() == '[') {
    const auto close = host.find(']');
    if (close == std::string_view::npos) return false;
    name = host.substr(0, close + 1);
    const auto rest = host.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return false;
      port_text = rest.substr(1);
      if (port_text.empty()) return false;
    }
  } else if (const auto colon = host.find(':'); colon != std::string_view::npos) {
    name = host.substr(0, colon);
    port_text = host.substr(colon + 1);
    if (port_text.empty()) return false;
  }
  if (name.empty() || name == "::1" || !is_loopback_host(name)) return false;
  if (port_text.empty()) return port == 80;
  if (port_text.size() > 5) return false;
  int p = 0;
  for (char c : port_text) {
    if (c < '0' || c > '9') return false;
    p = p * 10 + (c - '0');
  }
  return p == port && (port_text.size() == 1 || port_text.front() != '0');
}

std::optional<std::string> foreign_page(std::string_view origin, std::string_view sec_fetch_site,
                                        std::string_view host) {
  if (!origin.empty() && lower(origin) != "http://" + lower(host))
    return "a page of another origin (Origin '" + std::string(origin) + "') may not call this server's API";
  if (!sec_fetch_site.empty() && sec_fetch_site != "same-origin" && sec_fetch_site != "none")
    return "a page of another site (Sec-Fetch-Site '" + std::string(sec_fetch_site) +
           "') may not call this server's API";
  return std::nullopt;
}

bool token_matches(std::string_view given, std::string_view token) {
  if (token.empty()) return false;
  unsigned diff = given.size() == token.size() ? 0u : 1u;
  for (std::size_t i = 0; i < given.size(); ++i)
    diff |= static_cast<unsigned char>(given[i]) ^ static_cast<unsigned char>(token[i % token.size()]);
  return diff == 0;
}

std::string cookie_value(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    const auto semi = header.find(';');
    std::string_view part = header.substr(0, semi);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    const auto eq = part.find('=');
    if (eq != std::string_view::npos && part.substr(0, eq) == name) return std::string(part.substr(eq + 1));
    if (semi == std::string_view::npos) break;
    header.remove_prefix(semi + 1);
  }
  return {};
}

}  // namespace gpuplan::server
