#pragma once
// One client connection of `gpuplan serve` as the HTTP library reads it: a Stream over the socket
// (or over bytes in memory, for tests and the fuzz harness) that bounds what a client can hold.
//   - a whole-request deadline: the request line, headers and body arrive within it, however slowly
//     each byte comes (a per-read timeout lets a client sending one byte every few seconds hold a
//     worker for ever);
//   - a size limit on the request line and headers together (the library bounds each line only);
//   - the answer is sent in one write when the request is done (with TCP_NODELAY on the socket: no
//     Nagle / delayed-ACK wait on keep-alive connections);
//   - every wait ends within 100 ms of the server stopping.
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace gpuplan::server {

// Why reading the request in progress failed (none: it did not, or the client went away).
enum class ReadFailure { none, timed_out, headers_too_large, body_too_large };

// What the stream failing the request this thread is processing reported; none outside a request.
ReadFailure current_read_failure();

struct StreamLimits {
  std::chrono::milliseconds request_deadline{10000};  // first byte of a request to its last
  std::chrono::milliseconds write_timeout{5000};      // the client taking the answer
  std::size_t max_header_bytes = 16 * 1024;           // request line and headers
  std::size_t max_body_bytes = 64 * 1024 + 4096;      // the body as sent (chunk sizes included)
};

// Counts the request line and header bytes a stream hands out, up to the blank line that ends them.
class HeaderBudget {
 public:
  HeaderBudget(std::size_t max_header_bytes, std::size_t max_body_bytes)
      : max_bytes_(max_header_bytes), max_body_bytes_(max_body_bytes) {}
  void begin_request() {
    in_headers_ = true;
    failure_ = ReadFailure::none;
    bytes_ = body_bytes_ = 0;
    line_length_ = 0;
  }
  // How many of the `available` bytes at `data` may be handed out; fewer, with failure() set, when
  // the headers or the body are over budget.
  std::size_t allow(const char* data, std::size_t available);
  ReadFailure failure() const { return failure_; }

 private:
  std::size_t max_bytes_, max_body_bytes_;
  bool in_headers_ = true;
  ReadFailure failure_ = ReadFailure::none;
  std::size_t bytes_ = 0, body_bytes_ = 0;
  std::size_t line_length_ = 0;  // bytes of the current line before its '\n' ('\r' not counted)
};

class SocketStream final : public httplib::Stream {
 public:
  SocketStream(int sock, const StreamLimits& limits, const std::atomic<bool>& stopping);
  ~SocketStream() override;

  // Waits up to `wait` for the first byte of a next request (true: there is one, or the client
  // closed); false on timeout, when the server stops, or when `give_up()` says so.
  template <typename GiveUp>
  bool wait_for_request(std::chrono::milliseconds wait, GiveUp give_up);
  // Starts the deadline and the header budget of the next request.
  void begin_request();
  const ReadFailure& failure() const { return failure_; }
  // Sends what the answer wrote; false when the client did not take it in time.
  bool flush();

  bool is_readable() const override;
  bool is_writable() const override { return true; }
  ssize_t read(char* ptr, std::size_t size) override;
  ssize_t write(const char* ptr, std::size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return sock_; }

 private:
  bool poll_in(std::chrono::milliseconds wait) const;  // readable (or closed) within `wait`
  bool fill();

  int sock_;
  StreamLimits limits_;
  const std::atomic<bool>& stopping_;
  HeaderBudget budget_;
  std::chrono::steady_clock::time_point deadline_{};
  ReadFailure failure_ = ReadFailure::none;
  char rbuf_[8192];
  std::size_t rpos_ = 0, rlen_ = 0;
  std::string wbuf_;
};

template <typename GiveUp>
bool SocketStream::wait_for_request(std::chrono::milliseconds wait, GiveUp give_up) {
  if (rpos_ < rlen_) return true;
  const auto until = std::chrono::steady_clock::now() + wait;
  while (!stopping_.load()) {
    if (give_up()) return false;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    if (poll_in(std::min(left, std::chrono::milliseconds(100)))) return true;
  }
  return false;
}

// The same over bytes in memory: reads `input` to its end, collects what is written.
class MemoryStream final : public httplib::Stream {
 public:
  MemoryStream(std::string_view input, const StreamLimits& limits)
      : input_(input), budget_(limits.max_header_bytes, limits.max_body_bytes) {}
  void begin_request() {
    budget_.begin_request();
    failure_ = ReadFailure::none;
  }
  bool at_end() const { return pos_ >= input_.size(); }
  const ReadFailure& failure() const { return failure_; }
  const std::string& output() const { return output_; }

  bool is_readable() const override { return true; }
  bool is_writable() const override { return true; }
  ssize_t read(char* ptr, std::size_t size) override;
  ssize_t write(const char* ptr, std::size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return INVALID_SOCKET; }

 private:
  std::string_view input_;
  std::size_t pos_ = 0;
  HeaderBudget budget_;
  ReadFailure failure_ = ReadFailure::none;
  std::string output_;
};

// Makes current_read_failure() report `failure` (a stream's) while alive, on this thread.
class CurrentStream {
 public:
  explicit CurrentStream(const ReadFailure& failure);
  ~CurrentStream();
  CurrentStream(const CurrentStream&) = delete;
  CurrentStream& operator=(const CurrentStream&) = delete;
};

}  // namespace gpuplan::server
