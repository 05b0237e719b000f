#include "server/connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace gpuplan::server {

namespace {

thread_local const ReadFailure* t_failure = nullptr;

void address_of(int sock, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  const int rc = peer ? ::getpeername(sock, reinterpret_cast<sockaddr*>(&addr), &len)
                      : ::getsockname(sock, reinterpret_cast<sockaddr*>(&addr), &len);
  ip.clear();
  port = 0;
  if (rc != 0) return;
  char buf[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &a->sin_addr, buf, sizeof buf);
    port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &a->sin6_addr, buf, sizeof buf);
    port = ntohs(a->sin6_port);
  }
  ip = buf;
}

}  // namespace

ReadFailure current_read_failure() { return t_failure ? *t_failure : ReadFailure::none; }

CurrentStream::CurrentStream(const ReadFailure& failure) { t_failure = &failure; }
CurrentStream::~CurrentStream() { t_failure = nullptr; }

std::size_t HeaderBudget::allow(const char* data, std::size_t available) {
  if (failure_ != ReadFailure::none) return 0;
  std::size_t i = 0;
  for (; in_headers_ && i < available; ++i) {
    if (++bytes_ > max_bytes_) {
      failure_ = ReadFailure::headers_too_large;
      return i;
    }
    const char c = data[i];
    if (c == '\n') {
      const bool blank = line_length_ == 0;
      line_length_ = 0;
      if (blank && bytes_ > 2) in_headers_ = false;  // the blank line after the headers: the rest is body
    } else if (c != '\r') {
      ++line_length_;
    }
  }
  if (in_headers_) return available;
  const std::size_t body = available - i;
  if (body_bytes_ + body > max_body_bytes_) {
    failure_ = ReadFailure::body_too_large;
    return i + (max_body_bytes_ - body_bytes_);
  }
  body_bytes_ += body;
  return available;
}

SocketStream::SocketStream(int sock, const StreamLimits& limits, const std::atomic<bool>& stopping)
    : sock_(sock), limits_(limits), stopping_(stopping), budget_(limits.max_header_bytes, limits.max_body_bytes) {}

SocketStream::~SocketStream() = default;

void SocketStream::begin_request() {
  budget_.begin_request();
  failure_ = ReadFailure::none;
  deadline_ = std::chrono::steady_clock::now() + limits_.request_deadline;
}

bool SocketStream::poll_in(std::chrono::milliseconds wait) const {
  pollfd p{sock_, POLLIN, 0};
  const int rc = ::poll(&p, 1, static_cast<int>(wait.count()));
  return rc > 0;
}

bool SocketStream::is_readable() const {
  if (rpos_ < rlen_) return true;
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now());
  return left.count() > 0 && poll_in(std::min(left, std::chrono::milliseconds(100)));
}

bool SocketStream::fill() {
  for (;;) {
    if (stopping_.load()) return false;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      failure_ = ReadFailure::timed_out;
      return false;
    }
    if (!poll_in(std::min(left, std::chrono::milliseconds(100)))) continue;
    const ssize_t n = ::recv(sock_, rbuf_, sizeof rbuf_, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return false;  // closed or failed
    rpos_ = 0;
    rlen_ = static_cast<std::size_t>(n);
    return true;
  }
}

ssize_t SocketStream::read(char* ptr, std::size_t size) {
  if (size == 0) return 0;
  if (rpos_ == rlen_ && !fill()) return -1;
  std::size_t n = std::min(size, rlen_ - rpos_);
  n = budget_.allow(rbuf_ + rpos_, n);
  if (n == 0 && budget_.failure() != ReadFailure::none) {
    failure_ = budget_.failure();
    return -1;
  }
  std::memcpy(ptr, rbuf_ + rpos_, n);
  rpos_ += n;
  return static_cast<ssize_t>(n);
}

ssize_t SocketStream::write(const char* ptr, std::size_t size) {
  wbuf_.append(ptr, size);
  if (wbuf_.size() >= (1u << 16) && !flush()) return -1;
  return static_cast<ssize_t>(size);
}

bool SocketStream::flush() {
  std::size_t sent = 0;
  const auto until = std::chrono::steady_clock::now() + limits_.write_timeout;
  while (sent < wbuf_.size()) {
    const ssize_t n = ::send(sock_, wbuf_.data() + sent, wbuf_.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) break;
    if (stopping_.load() || std::chrono::steady_clock::now() >= until) break;
    pollfd p{sock_, POLLOUT, 0};
    ::poll(&p, 1, 100);
  }
  const bool ok = sent == wbuf_.size();
  wbuf_.clear();
  return ok;
}

void SocketStream::get_remote_ip_and_port(std::string& ip, int& port) const { address_of(sock_, true, ip, port); }
void SocketStream::get_local_ip_and_port(std::string& ip, int& port) const { address_of(sock_, false, ip, port); }

ssize_t MemoryStream::read(char* ptr, std::size_t size) {
  if (pos_ >= input_.size()) return -1;
  std::size_t n = std::min(size, input_.size() - pos_);
  n = budget_.allow(input_.data() + pos_, n);
  if (n == 0 && budget_.failure() != ReadFailure::none) {
    failure_ = budget_.failure();
    return -1;
  }
  std::memcpy(ptr, input_.data() + pos_, n);
  pos_ += n;
  return static_cast<ssize_t>(n);
}

ssize_t MemoryStream::write(const char* ptr, std::size_t size) {
  output_.append(ptr, size);
  return static_cast<ssize_t>(size);
}

void MemoryStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  ip = "127.0.0.1";
  port = 40000;
}
void MemoryStream::get_local_ip_and_port(std::string& ip, int& port) const {
  ip = "127.0.0.1";
  port = 8080;
}

}  // namespace gpuplan::server
