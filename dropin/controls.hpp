// SPDX-License-Identifier: Apache-2.0
// The environment controls, read once per process (in the manner of NVBLAS):
//   SPGEMM_CUSPARSE_DISABLE=1   every call goes to the real cuSPARSE untouched
//   SPGEMM_CUSPARSE_LOG=1       one line per call on stderr: path, reason, time
//   SPGEMM_CUSPARSE_LOG=<path>  the same lines appended to that file
//   SPGEMM_CUSPARSE_LIBRARY=<path>  the real libcusparse to forward to
//   SPGEMM_CUSPARSE_TEST_HOST=1 (tests only) the matrices' arrays are host
//                               memory, computed by libspgemm's host backend
#pragma once

#include <chrono>
#include <string>

namespace spgemm_dropin {

struct Controls {
  bool disabled = false;
  bool log = false;
  std::string log_path;  // "" with log on: stderr
  bool test_host = false;
};

const Controls& controls();

// Appends one line to the log (thread-safe); no-op when logging is off.
void log_line(const std::string& line);

// One call's log record: "<function> -> <path> (<reason>) <status> <ms> ms".
class CallLog {
 public:
  explicit CallLog(const char* function);
  void path(const char* path, std::string reason = {});
  bool has_reason() const { return !reason_.empty(); }
  // Writes the line, returns status.
  template <class Status>
  Status finish(Status status) {
    write(static_cast<int>(status));
    return status;
  }

 private:
  void write(int status);
  const char* function_;
  const char* path_ = "cusparse";
  std::string reason_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace spgemm_dropin
