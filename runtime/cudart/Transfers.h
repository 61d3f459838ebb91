// Copies and fills checked now and run later, as graph nodes (Copy.cpp): the same checks and
// the same stream work as cudaMemcpy*Async and cudaMemset*Async.
#pragma once

#include "runtime/cudart/CudaTypes.h"

#include <functional>
#include <string>
#include <vector>

namespace cudart {

class Runtime;

/// Each fills `work` with what runs the transfer and `label` with what it is, or returns the
/// error a GPU gives for the parameters.
cudaError_t copyWork3D(Runtime &rt, const cudaMemcpy3DParms *p, std::function<void()> &work,
                       std::string &label);
cudaError_t copyWork1D(Runtime &rt, void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                       std::function<void()> &work, std::string &label);
/// One rectangle of a copy: `height` rows of `width` bytes, each side `pitch` bytes from row to
/// row.
struct RowCopy {
  void *dst;
  size_t dpitch;
  const void *src;
  size_t spitch;
  size_t width, height;
};
/// A copy call whose rectangles `resolve` finds under the runtime's lock (the CUDA array forms,
/// whose rows are device memory rowPitch bytes apart): the checks and stream work of
/// cudaMemcpy2D (`blocking`) or cudaMemcpy2DAsync, every rectangle checked before any runs.
cudaError_t rowsCall(const char *name, cudaStream_t stream, bool blocking, cudaMemcpyKind kind,
                     const std::function<cudaError_t(Runtime &, std::vector<RowCopy> &)> &resolve);
/// A 3-D copy's side that is the CUDA array `array` as the pitched memory holding it (Arrays.cpp):
/// `pos` and `extent`, in texels, become bytes. cudaErrorInvalidValue when the box leaves the
/// array, cudaErrorInvalidResourceHandle when `array` names none.
cudaError_t arrayAsPitched(Runtime &rt, const cudaArray *array, cudaPos &pos, cudaExtent &extent,
                           cudaPitchedPtr &out);

cudaError_t memsetWork(Runtime &rt, const cudaMemsetParams &p, std::function<void()> &work,
                       std::string &label);

} // namespace cudart
