// SPDX-License-Identifier: Apache-2.0
#include "state.hpp"

#include "controls.hpp"

#include <mutex>
#include <unordered_map>

namespace spgemm_dropin {
namespace {

Process start() {
  Process p;
  const Controls& c = controls();
  p.real = &real_cusparse();
  if (!p.real->complete()) {
    p.why_disabled = "real cuSPARSE incomplete: " + p.real->missing;
  } else if (c.disabled) {
    p.why_disabled = "SPGEMM_CUSPARSE_DISABLE is set";
  } else {
    p.slot = probe_nnz_slot(*p.real);
    if (!p.slot.found) p.why_disabled = "nnz probe failed: " + p.slot.detail;
  }
  p.enabled = p.why_disabled.empty();
  log_line(std::string("real cuSPARSE: ") + (p.real->origin.empty() ? "?" : p.real->origin));
  if (p.enabled)
    log_line("on; descriptor probe: " + p.slot.detail);
  else
    log_line("off, every call forwarded: " + p.why_disabled);
  return p;
}

struct Registry {
  std::mutex mutex;
  std::unordered_map<cusparseSpGEMMDescr_t, Descr*> descrs;
  std::unordered_map<cusparseHandle_t, std::shared_ptr<LibHandle>> handles;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: calls may come during exit
  return *r;
}

}  // namespace

// Never destroyed (nor anything below): programs call cusparseDestroy from
// their own static destructors and exit handlers, after ours would have run.
const Process& process() {
  static std::once_flag once;
  static Process* p = nullptr;
  std::call_once(once, [] { p = new Process(start()); });
  return *p;
}

std::shared_ptr<LibHandle> lib_handle_for(cusparseHandle_t handle, spgemmStatus_t* status) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.handles.find(handle);
  if (it != r.handles.end()) return it->second;
  auto lib = std::make_shared<LibHandle>();
  *status = spgemmCreate(&lib->handle);
  if (*status != SPGEMM_STATUS_SUCCESS) return nullptr;
  r.handles.emplace(handle, lib);
  return lib;
}

void forget_handle(cusparseHandle_t handle) {
  std::shared_ptr<LibHandle> keep;  // destroyed outside the lock
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.handles.find(handle);
  if (it == r.handles.end()) return;
  keep = std::move(it->second);
  r.handles.erase(it);
}

Descr::~Descr() {
  spgemmPlanDestroy(plan);
  spgemmDestroyMatrix(a);
  spgemmDestroyMatrix(b);
  spgemmDestroyMatrix(c);
}

Descr* ours(cusparseSpGEMMDescr_t d) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.descrs.find(d);
  return it == r.descrs.end() ? nullptr : it->second;
}

void register_descr(Descr* d) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.descrs[d->real] = d;
}

Descr* unregister_descr(cusparseSpGEMMDescr_t d) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.descrs.find(d);
  if (it == r.descrs.end()) return nullptr;
  Descr* state = it->second;
  r.descrs.erase(it);
  return state;
}

}  // namespace spgemm_dropin
