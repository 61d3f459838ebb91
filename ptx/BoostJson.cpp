// Boost.JSON's compiled part, built from its headers in exactly this one
// translation unit: every library and libcudart.so.13 get it statically, so
// the CUDA runtime replacement loads no Boost library and (its version script
// keeping everything else local) exports none of these symbols.
#include <boost/json/src.hpp>
