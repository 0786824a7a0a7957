// Fixed text of the generated .cu files (see prelude.cpp).
#pragma once

#include <string>

namespace cake::lowering {

// Global part: #includes and the kernel ABI types (guarded, so several
// lowered files can be concatenated into one translation unit).
const char* preludeGlobalText();
// The rest goes inside the (optional) namespace.
const char* preludeText();         // integer helpers, smem, mbarriers, named barriers, conversions
const char* preludeTmaText();      // sm_90a / sm_100a: TMA 1-5d, setmaxnreg, proxy fences
const char* preludeWgmmaText();    // sm_90a: wgmma fence/commit/wait, descriptors
const char* preludeClusterText();  // schedules with cluster ops: remote arrive, barrier.cluster, TMA multicast
const char* preludeSm80Text();     // cp.async, ldmatrix, mma.sync (all targets)
const char* preludeTcgen05Text();  // sm_100a: tcgen05 alloc/mma/commit/ld/st, fences
const char* preludeHostText();     // host: tensor-map encoding through the driver entry point
// wgmma.mma_async m64nNk{K} wrapper for one accumulator width and operand
// type ("bf16", "f16", "e4m3", "e5m2", "tf32"); rs: A from registers.
std::string wgmmaHelper(int n, const std::string& ab_type, bool rs, bool trans = false);

}  // namespace cake::lowering
