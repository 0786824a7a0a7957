// The one-word scratch kernels of turn_taking_test.cpp (docs/rules/
// data.stale-read.md "A write handed over in barrier order", session 44),
// shared with sound45_test.cpp.
#pragma once

#include <string>

namespace cake::testing {

// A kernel over one f32 word of shared memory (`ss[0]`, a one-stage view)
// and two one-element fragments, parameter n >= 1 rounds: the header every
// form below shares, then `body` (roles, barriers, programs).
inline std::string scratchKernel(const std::string& target, const std::string& body) {
  return "@cake.schedule(target=\"" + target + "\")\n"
         "def k(lm, Out: LM.gmem, n: LM.i32):\n"
         "    lm.assume(n >= 1)\n"
         "    pool = lm.smem(16)\n"
         "    ss   = pool.view(offset=0, shape=(1, 4), dtype=lm.f32)\n"
         "    x    = lm.regs(shape=(1, 1), dtype=lm.f32)\n"
         "    y    = lm.regs(shape=(1, 1), dtype=lm.f32)\n" +
         body;
}

// Two roles hand the word back and forth through mbarriers: each writes
// it, reads its own write back, and reads the other's.
inline const std::string kMbarrierTurns = scratchKernel("sm_90a", R"(    ping = lm.role(warps=[0])
    pong = lm.role(warps=[1])
    p2q  = lm.barrier(count=1, prod=[ping], cons=[pong], init_count=1)
    q2p  = lm.barrier(count=1, prod=[pong], cons=[ping], init_count=1)
    with ping:
        lm.fill(x, 1.0)
        for r in lm.range(0, n):
            lm.copy(ss[0][0:1, 0:1], x)
            lm.copy(y, ss[0][0:1, 0:1])
            lm.arrive(p2q, iter=r)
            lm.wait(q2p, iter=r)
            lm.copy(x, ss[0][0:1, 0:1])
        lm.copy(Out, x, coords=(lm.block_idx(0), 0))
    with pong:
        for r in lm.range(0, n):
            lm.wait(p2q, iter=r)
            lm.copy(y, ss[0][0:1, 0:1])
            lm.copy(ss[0][0:1, 0:1], y)
            lm.copy(x, ss[0][0:1, 0:1])
            lm.arrive(q2p, iter=r)
        lm.copy(Out, x, coords=(lm.block_idx(0), 1))
)");

// FlashMLA's row max sM, minimal: warpgroup 0 reads the word, updates it
// and hands it to warpgroup 1 (lm.bar_arrive), which updates it and hands
// it back; warpgroup 0's read of the next round finds warpgroup 1's write
// of the round before, which answered warpgroup 0's own write.
inline const std::string kRunningMax = scratchKernel("sm_80", R"(    wg0  = lm.role(warps=[0])
    wg1  = lm.role(warps=[1])
    to1  = lm.named_barrier(roles=[wg0, wg1])
    to0  = lm.named_barrier(roles=[wg0, wg1])
    with wg0:
        lm.fill(x, -1.0)
        lm.copy(ss[0][0:1, 0:1], x)
        for j in lm.range(0, n):
            lm.copy(x, ss[0][0:1, 0:1])
            lm.binary(x, x, 1.0, op="add")
            lm.copy(ss[0][0:1, 0:1], x)
            lm.bar_arrive(to1)
            lm.sync(to0)
        lm.copy(x, ss[0][0:1, 0:1])
        lm.copy(Out, x, coords=(lm.block_idx(0), 0))
    with wg1:
        for j in lm.range(0, n):
            lm.sync(to1)
            lm.copy(y, ss[0][0:1, 0:1])
            lm.binary(y, y, 1.0, op="add")
            lm.copy(ss[0][0:1, 0:1], y)
            lm.bar_arrive(to0)
)");

}  // namespace cake::testing
