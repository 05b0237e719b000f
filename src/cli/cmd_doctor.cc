// gpuplan doctor [--replay DIR] [--timeout S]
// Checks this machine for planning and running AI jobs: runs nvidia-smi (query and topo -m), nvcc and a
// one-line PyTorch probe, then matches each GPU to the catalog and checks driver, CUDA, PyTorch and
// precision support (src/doctor/). Exit 0 when nothing is an error (a machine without a GPU included),
// 1 when a finding is an error, 2 on bad options.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <iostream>

#include "cli/commands.h"
#include "cli/common.h"
#include "doctor/doctor.h"
#include "doctor/recorded.h"

namespace gpuplan::cli {
namespace {

using nlohmann::json;
using doctor::Severity;
using doctor::ToolOutput;
using doctor::ToolStatus;

// Runs argv (no shell) with stdout and stderr captured, killing it after timeout_s.
ToolOutput run_tool(std::vector<std::string> argv, double timeout_s) {
  ToolOutput out;
  int fds[2];
  if (pipe(fds) != 0) {
    out.status = ToolStatus::failed;
    out.text = "pipe() failed";
    return out;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    out.status = ToolStatus::failed;
    out.text = "fork() failed";
    return out;
  }
  if (pid == 0) {
    setpgid(0, 0);  // its own group, so a timeout kills its children too
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  bool timed_out = false;
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;  // EOF: the tool closed its output
    out.text.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (timed_out) {
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (timed_out)
    out.status = ToolStatus::timed_out;
  else if (out.exit_code == 127 && out.text.empty())
    out.status = ToolStatus::missing;
  else
    out.status = out.exit_code == 0 ? ToolStatus::ok : ToolStatus::failed;
  return out;
}

doctor::Environment gather(double timeout_s) {
  doctor::Environment env;
  env.smi_query = run_tool({"nvidia-smi", std::string("--query-gpu=") + doctor::kSmiQueryFields, "--format=csv"},
                           timeout_s);
  if (env.smi_query.status == ToolStatus::ok) env.smi_topo = run_tool({"nvidia-smi", "topo", "-m"}, timeout_s);
  env.nvcc = run_tool({"nvcc", "--version"}, timeout_s);
  if (env.nvcc.status == ToolStatus::missing) env.nvcc = run_tool({"/usr/local/cuda/bin/nvcc", "--version"}, timeout_s);
  // -I: isolated mode; the current directory and $PYTHON* are not searched, so a torch.py in the
  // directory doctor runs from is never imported.
  env.torch = run_tool({"python3", "-I", "-c", doctor::kTorchProbe}, 3 * timeout_s);  // importing torch is slow
  return env;
}

json report_json(const doctor::Report& r, const doctor::Environment& env) {
  json gpus = json::array();
  for (const auto& g : r.gpus)
    gpus.push_back({{"index", g.smi.index},
                    {"name", g.smi.name},
                    {"uuid", g.smi.uuid},
                    {"pci_bus_id", g.smi.pci_bus_id},
                    {"driver_version", g.smi.driver_version},
                    {"memory_bytes", g.smi.memory_bytes},
                    {"compute_capability", g.smi.compute_capability},
                    {"power_limit_w", g.smi.power_limit_w},
                    {"catalog_name", g.catalog_name},
                    {"generation", g.generation}});
  json findings = json::array();
  json summary = {{"ok", 0}, {"warning", 0}, {"error", 0}};
  for (const auto& f : r.findings) {
    findings.push_back({{"severity", to_string(f.severity)}, {"subject", f.subject}, {"message", f.message},
                        {"action", f.action}});
    summary[to_string(f.severity)] = summary[to_string(f.severity)].get<int>() + 1;
  }
  json j = {{"gpus", gpus},
            {"driver_version", r.driver_version},
            {"driver_cuda", r.driver_cuda},
            {"nvcc_version", r.nvcc_version ? json(*r.nvcc_version) : json(nullptr)},
            {"tools",
             {{"nvidia_smi_query", to_string(env.smi_query.status)},
              {"nvidia_smi_topo", to_string(env.smi_topo.status)},
              {"nvcc", to_string(env.nvcc.status)},
              {"torch", to_string(env.torch.status)}}},
            {"findings", findings},
            {"summary", summary},
            {"worst", to_string(r.worst())}};
  if (r.topology) j["topology"] = {{"gpus", r.topology->gpus}, {"link", r.topology->link}};
  if (r.torch)
    j["torch"] = {{"version", r.torch->version},
                  {"cuda", r.torch->cuda},
                  {"arch_list", r.torch->arch_list},
                  {"cuda_available", r.torch->cuda_available}};
  return j;
}

void print_text(const doctor::Report& r) {
  if (r.gpus.empty()) {
    std::cout << "No NVIDIA GPU found on this machine.\n";
  } else {
    std::cout << fmt::format("{:<4} {:<24} {:>10}  {:<6} {:<12} {}\n", "GPU", "name", "memory", "sm", "driver",
                             "catalog");
    for (const auto& g : r.gpus)
      std::cout << fmt::format("{:<4} {:<24} {:>10}  {:<6} {:<12} {}\n", g.smi.index, g.smi.name,
                               fmt::format("{:.1f} GiB", g.smi.memory_bytes / std::pow(2.0, 30)),
                               g.smi.compute_capability
                                   ? fmt::format("{}.{}", g.smi.compute_capability / 10, g.smi.compute_capability % 10)
                                   : "?",
                               g.smi.driver_version, g.catalog_name.empty() ? "(not in catalog)" : g.catalog_name);
    std::cout << "\n";
  }
  int n[3] = {0, 0, 0};
  for (const auto& f : r.findings) {
    ++n[static_cast<int>(f.severity)];
    std::cout << fmt::format("{:<8} {:<9} {}\n", to_string(f.severity), f.subject, f.message);
    if (!f.action.empty()) std::cout << fmt::format("{:<18} -> {}\n", "", f.action);
  }
  std::cout << fmt::format("\n{} ok, {} warning{}, {} error{}\n", n[0], n[1], n[1] == 1 ? "" : "s", n[2],
                           n[2] == 1 ? "" : "s");
}

}  // namespace

int cmd_doctor(int argc, char** argv) {
  CLI::App app{"Check this machine: GPUs, driver, CUDA, PyTorch and NVLink against the catalog's rules"};
  CommonOptions common;
  add_common_options(app, common);
  std::string replay;
  double timeout_s = 10;
  app.add_option("--replay", replay,
                 "Diagnose recorded outputs in DIR instead of this machine (nvidia-smi-query.txt, "
                 "nvidia-smi-topo.txt, nvcc-version.txt, torch.txt; see src/doctor/recorded.h)");
  app.add_option("--timeout", timeout_s, "Seconds each tool may take (PyTorch: three times this)")
      ->check(CLI::Range(0.1, 600.0));
  if (int rc = parse_args(app, argc, argv); rc >= 0) return rc;
  return run_guarded([&] {
    const Catalog catalog = load_catalog(common);
    const doctor::Environment env = replay.empty() ? gather(timeout_s) : doctor::load_recorded(replay);
    const doctor::Report report = doctor::diagnose(env, catalog);
    if (common.json)
      print_json("doctor", report_json(report, env));
    else
      print_text(report);
    return report.worst() == Severity::error ? kExitFailure : kExitOk;
  });
}

}  // namespace gpuplan::cli
