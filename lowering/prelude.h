// Fixed text pieces of the generated CUDA files (see prelude.cpp).
#pragma once

#include <string>

namespace cake::lowering {

const char* preludeText();      // includes, ABI, integer helpers, mbarrier, named barriers, proxy fence
const char* preludeSm90Text();  // TMA, setmaxnreg, wgmma fence/commit/wait, descriptors
const char* preludeSm80Text();  // cp.async, ldmatrix, mma.sync
const char* preludeHostText();  // cuTensorMapEncodeTiled through the driver entry point
// The wgmma.mma_async m64n{n}k16 wrapper for "bf16" or "f16" operands.
std::string wgmmaHelper(int n, const std::string& ab_type);

}  // namespace cake::lowering
