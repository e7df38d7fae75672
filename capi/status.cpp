// SPDX-License-Identifier: Apache-2.0
// Names and messages of the public status codes.
#include <spgemm/spgemm.h>

namespace {

struct StatusText {
  const char* name;
  const char* message;
};

constexpr StatusText kStatusText[] = {
    {"SPGEMM_STATUS_SUCCESS", "success"},
    {"SPGEMM_STATUS_NOT_INITIALIZED", "a handle, plan or matrix descriptor is NULL"},
    {"SPGEMM_STATUS_ALLOC_FAILED", "a host or device memory allocation failed"},
    {"SPGEMM_STATUS_INVALID_VALUE", "an argument has an invalid value"},
    {"SPGEMM_STATUS_NOT_SUPPORTED", "the requested combination is valid but not supported"},
    {"SPGEMM_STATUS_EXECUTION_FAILED", "a CUDA call or kernel launch failed"},
    {"SPGEMM_STATUS_INTERNAL_ERROR", "an internal libspgemm error"},
    {"SPGEMM_STATUS_INVALID_STATE", "the phases of a plan were called out of order"},
    {"SPGEMM_STATUS_INDEX_OVERFLOW", "the result does not fit the chosen index type"},
    {"SPGEMM_STATUS_NO_DEVICE", "device memory was given but no usable GPU is present"},
};
constexpr int kStatusCount = sizeof(kStatusText) / sizeof(kStatusText[0]);

const StatusText* lookup(spgemmStatus_t status) {
  const int index = static_cast<int>(status);
  return index >= 0 && index < kStatusCount ? &kStatusText[index] : nullptr;
}

}  // namespace

extern "C" {

SPGEMM_API const char* spgemmGetErrorName(spgemmStatus_t status) {
  const StatusText* text = lookup(status);
  return text ? text->name : "SPGEMM_STATUS_UNKNOWN";
}

SPGEMM_API const char* spgemmGetErrorString(spgemmStatus_t status) {
  const StatusText* text = lookup(status);
  return text ? text->message : "unknown status code";
}

}  // extern "C"
