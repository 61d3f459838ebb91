// Links the PTX of separately compiled translation units (nvcc -rdc=true) into one module's
// text, as the driver's JIT linker would: `.extern` references resolve to definitions in other
// units, file-local names that collide are renamed, `.weak` duplicates keep their first
// definition, and `.file`/`.loc` numbers stay distinct per unit.
#pragma once

#include "ptx/Diagnostic.h"

#include <string>
#include <string_view>
#include <vector>

namespace cudart {

/// The linked text; errors (a name defined twice) go to `diags`. Every
/// function is declared before any body, so calls across units and between
/// bodies in any order are declared before use.
std::string linkPtx(const std::vector<std::string_view> &units, ptx::DiagnosticList &diags);

} // namespace cudart
