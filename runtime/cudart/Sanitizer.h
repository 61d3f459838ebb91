// Diagnostics of a launch as compute-sanitizer prints them: a "=========" block per finding with
// what happened, where (kernel, CUDA file:line when the PTX has .loc, PTX line), which thread or
// warp in which block, and the address and nearest allocation for memory errors.
#pragma once

#include "ptx/Diagnostic.h"
#include "runtime/Device.h"

#include <string>
#include <string_view>

namespace cudart {

/// What the renderer needs to know about the launch a diagnostic came from.
struct SanitizerContext {
  runtime::Dim3 block; // block dimensions, to name threads as (x,y,z)
};

/// One diagnostic as a compute-sanitizer block (each line starts with "=========").
std::string renderSanitizer(const ptx::Diagnostic &d, const SanitizerContext &context);

/// The line compute-sanitizer prints when an API call returns an error.
std::string renderApiError(std::string_view api, int code, std::string_view name, std::string_view message);

/// A C++ name demangled (`_Z6vecAddPfS_i` -> `vecAdd(float*, float*, int)`), or as given.
std::string demangle(std::string_view name);

} // namespace cudart
