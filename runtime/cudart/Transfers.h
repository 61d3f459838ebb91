// Copies and fills checked now and run later, as graph nodes (Copy.cpp): the same checks and
// the same stream work as cudaMemcpy*Async and cudaMemset*Async.
#pragma once

#include "runtime/cudart/CudaTypes.h"

#include <functional>
#include <string>

namespace cudart {

class Runtime;

/// Each fills `work` with what runs the transfer and `label` with what it is, or returns the
/// error a GPU gives for the parameters.
cudaError_t copyWork3D(Runtime &rt, const cudaMemcpy3DParms *p, std::function<void()> &work,
                       std::string &label);
cudaError_t copyWork1D(Runtime &rt, void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                       std::function<void()> &work, std::string &label);
cudaError_t memsetWork(Runtime &rt, const cudaMemsetParams &p, std::function<void()> &work,
                       std::string &label);

} // namespace cudart
