// SPDX-License-Identifier: Apache-2.0
#include "controls.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace spgemm_dropin {
namespace {

bool on(const char* value) {
  return value && *value && std::strcmp(value, "0") != 0 && std::strcmp(value, "false") != 0;
}

Controls read() {
  Controls c;
  c.disabled = on(std::getenv("SPGEMM_CUSPARSE_DISABLE"));
  const char* log = std::getenv("SPGEMM_CUSPARSE_LOG");
  c.log = on(log);
  if (c.log && std::strcmp(log, "1") != 0 && std::strcmp(log, "stderr") != 0) c.log_path = log;
  c.test_host = on(std::getenv("SPGEMM_CUSPARSE_TEST_HOST"));
  return c;
}

// Never destroyed: calls may come during exit.
std::mutex& log_mutex() {
  static std::mutex* m = new std::mutex;
  return *m;
}

}  // namespace

const Controls& controls() {
  static const Controls* c = new Controls(read());
  return *c;
}

void log_line(const std::string& line) {
  const Controls& c = controls();
  if (!c.log) return;
  std::lock_guard<std::mutex> lock(log_mutex());
  FILE* f = c.log_path.empty() ? stderr : std::fopen(c.log_path.c_str(), "a");
  if (!f) return;
  std::fprintf(f, "[spgemm_cusparse] %s\n", line.c_str());
  if (f != stderr) std::fclose(f);
  else std::fflush(f);
}

CallLog::CallLog(const char* function)
    : function_(function), start_(std::chrono::steady_clock::now()) {}

void CallLog::path(const char* path, std::string reason) {
  path_ = path;
  reason_ = std::move(reason);
}

void CallLog::write(int status) {
  if (!controls().log) return;
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  char timing[64];
  std::snprintf(timing, sizeof timing, "status=%d %.3f ms", status, ms);
  std::string line = std::string(function_) + " -> " + path_;
  if (!reason_.empty()) line += " (" + reason_ + ")";
  log_line(line + " " + timing);
}

}  // namespace spgemm_dropin
