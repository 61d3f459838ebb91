// Error codes: names and messages, the last error of each host thread, and the sticky error a
// faulted kernel leaves (Runtime::sticky, returned by every later call).
#include "runtime/cudart/Runtime.h"

namespace cudart {

cudaError_t &lastError() {
  thread_local cudaError_t error = cudaSuccess;
  return error;
}

const char *errorName(cudaError_t e) {
  switch (e) {
#define CUDART_ERROR(name, value, message)                                                                   \
  case name:                                                                                                 \
    return #name;
#include "runtime/cudart/Errors.def"
#undef CUDART_ERROR
  }
  return "unrecognized error code";
}

const char *errorString(cudaError_t e) {
  switch (e) {
#define CUDART_ERROR(name, value, message)                                                                   \
  case name:                                                                                                 \
    return message;
#include "runtime/cudart/Errors.def"
#undef CUDART_ERROR
  }
  return "unrecognized error code";
}

cudaError_t errorNamed(std::string_view name) {
#define CUDART_ERROR(n, value, message)                                                                      \
  if (name == #n) return n;
#include "runtime/cudart/Errors.def"
#undef CUDART_ERROR
  return cudaErrorLaunchFailure;
}

} // namespace cudart

using namespace cudart;

CUDART_EXPORT const char *cudaGetErrorName(cudaError_t error) { return errorName(error); }

CUDART_EXPORT const char *cudaGetErrorString(cudaError_t error) { return errorString(error); }

/// The last error of this thread, which it resets, unless a kernel fault
/// left a sticky error: that one stays.
CUDART_EXPORT cudaError_t cudaGetLastError() {
  Api api("cudaGetLastError", Api::Ignores);
  cudaError_t e = api.rt.sticky != cudaSuccess ? api.rt.sticky.load() : lastError();
  lastError() = cudaSuccess;
  return e;
}

CUDART_EXPORT cudaError_t cudaPeekAtLastError() {
  Api api("cudaPeekAtLastError", Api::Ignores);
  return api.rt.sticky != cudaSuccess ? api.rt.sticky.load() : lastError();
}
