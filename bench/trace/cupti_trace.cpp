// SPDX-License-Identifier: Apache-2.0
// A timeline of any CUDA program without Nsight Systems (the device machines
// have none): an injection library that the CUDA driver loads at its
// initialization when CUDA_INJECTION64_PATH names it. It records, through
// CUPTI's activity API, every runtime API call on the host and every kernel,
// memset and copy on the devices (one clock for both), and writes them at
// exit as CSV to $SPGEMM_TRACE (default spgemm-trace.csv):
//   kind,start_ns,end_ns,device,stream,correlation,name,detail
// kind is api, kernel, memset or memcpy; an API call and the device work it
// launched share their correlation id. bench/trace_timeline.py reads it.
// The tracing itself costs each call and kernel a little: it shows where the
// time goes, not how long the untraced program takes.
//   CUDA_INJECTION64_PATH=build/bench/libspgemm-trace.so SPGEMM_TRACE=t.csv
//     spgemm-bench --gen poisson2d:50 --reps 3 --no-cusparse   (one command)
#include <cupti.h>

#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Record {
  const char* kind;
  unsigned long long start, end;
  unsigned device, stream, correlation;
  std::string name;
  std::string detail;
};

std::mutex g_mutex;
std::vector<Record> g_records;

constexpr size_t kBufferBytes = 8u << 20;

void check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  std::fprintf(stderr, "spgemm-trace: %s: %s\n", what, text ? text : "?");
}

// A kernel's name without its namespace, template arguments or parameters.
std::string short_name(const char* mangled) {
  if (!mangled) return "?";
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> full(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), &std::free);
  std::string name = status == 0 && full ? full.get() : mangled;
  const std::string anonymous = "(anonymous namespace)::";
  for (size_t at; (at = name.find(anonymous)) != std::string::npos;) name.erase(at, anonymous.size());
  int depth = 0;
  std::string out;
  for (char ch : name) {  // drop <...> and (...) and everything after the first '('
    if (ch == '(' && depth == 0) break;
    if (ch == '<') ++depth;
    if (depth == 0) out += ch;
    if (ch == '>') --depth;
  }
  const size_t colon = out.rfind("::");
  if (colon != std::string::npos) out = out.substr(colon + 2);
  const size_t space = out.rfind(' ');  // a leading return type
  if (space != std::string::npos) out = out.substr(space + 1);
  return out;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = kBufferBytes;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::vector<Record> batch;
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_RUNTIME: {
        const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        const char* name = nullptr;
        cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid, &name);
        batch.push_back({"api", a->start, a->end, 0, a->threadId, a->correlationId,
                         name ? name : "?", ""});
        break;
      }
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        batch.push_back({"kernel", k->start, k->end, k->deviceId, k->streamId, k->correlationId,
                         short_name(k->name),
                         std::to_string(k->gridX) + "x" + std::to_string(k->blockX)});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        batch.push_back({"memset", m->start, m->end, m->deviceId, m->streamId, m->correlationId,
                         "memset", std::to_string(m->bytes)});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        batch.push_back({"memcpy", m->start, m->end, m->deviceId, m->streamId, m->correlationId,
                         "memcpy" + std::to_string(m->copyKind), std::to_string(m->bytes)});
        break;
      }
      default:
        break;
    }
  }
  std::free(buffer);
  const std::lock_guard<std::mutex> lock(g_mutex);
  g_records.insert(g_records.end(), batch.begin(), batch.end());
}

void write_trace() {
  check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  const char* path = std::getenv("SPGEMM_TRACE");
  if (!path || !*path) path = "spgemm-trace.csv";
  FILE* f = std::fopen(path, "w");
  if (!f) {
    std::fprintf(stderr, "spgemm-trace: cannot write %s\n", path);
    return;
  }
  std::fprintf(f, "kind,start_ns,end_ns,device,stream,correlation,name,detail\n");
  const std::lock_guard<std::mutex> lock(g_mutex);
  for (const Record& r : g_records)
    std::fprintf(f, "%s,%llu,%llu,%u,%u,%u,%s,%s\n", r.kind, r.start, r.end, r.device, r.stream,
                 r.correlation, r.name.c_str(), r.detail.c_str());
  std::fclose(f);
  std::fprintf(stderr, "spgemm-trace: %zu records in %s\n", g_records.size(), path);
}

}  // namespace

// Called by the CUDA driver (CUDA_INJECTION64_PATH) once, at its initialization.
extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
        "cuptiActivityRegisterCallbacks");
  const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_RUNTIME,
                                      CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                      CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMCPY};
  for (CUpti_ActivityKind kind : kinds) check(cuptiActivityEnable(kind), "cuptiActivityEnable");
  std::atexit(write_trace);
  return 1;
}
