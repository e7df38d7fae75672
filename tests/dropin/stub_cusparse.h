// SPDX-License-Identifier: Apache-2.0
// The stub libcusparse's own functions (beside the cuSPARSE ones it defines):
// what the drop-in forwarded to it.
#pragma once

#ifndef DISABLE_CUSPARSE_DEPRECATED
#define DISABLE_CUSPARSE_DEPRECATED
#endif
#include <cusparse.h>

#include <cstddef>

struct StubCall {
  const char* name = nullptr;
  const void* descr = nullptr;  // the SpGEMM descriptor the stub received
  int alg = -1;
  const void* buffer = nullptr;
  const void* matC = nullptr;
};

constexpr size_t kStubBufferSize = 1000;

extern "C" {
__attribute__((visibility("default"))) int stub_call_count(const char* name);
__attribute__((visibility("default"))) StubCall stub_last_call(const char* name);
__attribute__((visibility("default"))) void stub_reset(void);
// Whether p is a SpGEMM descriptor the stub created.
__attribute__((visibility("default"))) int stub_is_stub_spgemm_descr(const void* p);
}
