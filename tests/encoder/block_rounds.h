// The rounds kernel of trip_block_param_test.cpp (docs/z3.md "Loops
// bounded by the block index"), shared with sound34_attacks_test.cpp.
#pragma once

#include <string>

#include "test_util.h"

namespace cake::testing {

// Two warps exchange a value per round through shared memory, a row pair per
// warp used by round parity: warp w runs
// lm.block_idx(0) + 1 + w rounds (a causal block's KV steps, one more for
// the second warp), then the rounds that flush (`lm.range(b + 1 + w, b +
// 2)`: one for warp 0, none for warp 1), which pass the barriers as a round
// does and write the warp's own row for its sibling's last round.
inline const std::string kBlockRounds = R"(
@cake.schedule(target="sm_80")
def rounds(lm, X: LM.gmem, Y: LM.gmem):
    smem  = lm.smem(512)
    rows  = smem.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=4)
    v     = lm.regs(shape=(1, 32), dtype=lm.f32)
    pair  = lm.role(warps=[0, 1], group=1)
    block = lm.named_barrier(roles=[pair])
    with pair:
        w = lm.instance()
        b = lm.block_idx(0)
        for c in lm.range(0, b + 1 + w):
            lm.copy(v, X, coords=(c, 32 * w))
            lm.copy(rows[2 * w + c % 2], v)
            FIRST_SYNC
            lm.copy(v, rows[2 - 2 * w + c % 2])
            lm.copy(Y, v, coords=(c, 32 * w))
            lm.sync(block)
        for c in lm.range(b + 1 + w, b + 2):
            FLUSH_WRITE
            lm.sync(block)
            lm.sync(block)
)";

inline std::string blockRounds(const std::string& first_sync = "lm.sync(block)",
                               const std::string& flush_write = "lm.copy(rows[2 * w + c % 2], v)") {
  std::string t = replace(kBlockRounds, "FIRST_SYNC", first_sync);
  return replace(t, "FLUSH_WRITE", flush_write);
}

}  // namespace cake::testing
