// A block's row of a global tensor stored by two warps and read back by
// one (block_coords_test.cpp, sound44_test.cpp).
#pragma once

#include <string>

#include "test_util.h"

namespace cake::testing {

// Two warps copy a row of A into B at the block's row `t`, a barrier, then
// warp 0 reads the block's row of B. WRITE, READ: B's coordinates; SYNC:
// the barrier between them.
inline const std::string kBlockRow = R"(@cake.schedule(target="sm_80")
def k(lm, A: LM.gmem, B: LM.gmem, rows: LM.i32):
    x = lm.regs(shape=(1, 32), dtype=lm.i32)
    y = lm.regs(shape=(1, 64), dtype=lm.i32)
    warps = lm.role(warps=[0, 1], group=1)
    block = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        t = lm.block_idx(0)
        if GUARD:
            lm.copy(x, A, coords=(t, 32 * w))
            lm.copy(B, x, coords=(WRITE, 32 * w))
        SYNC
        if w == 0:
            lm.copy(y, B, coords=(READ, 0))
        lm.sync(block)
)";

inline std::string blockRow(const std::string& write, const std::string& read, bool sync,
                     const std::string& guard = "32 * w < rows") {
  using cake::testing::replace;
  std::string t = replace(kBlockRow, "GUARD", guard);
  t = replace(t, "WRITE", write);
  t = replace(t, "READ", read);
  return replace(t, "SYNC", sync ? "lm.sync(block)" : "pass");
}

}  // namespace cake::testing
