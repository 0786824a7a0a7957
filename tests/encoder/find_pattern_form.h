// findPattern's two loops in sequence (helper bounds48, session 48):
// PyTorch's XPU radix select runs `n_passes` radix passes, then findPattern's
// search over `hit + 1` chunks, the match written at chunk `hit`. Shared by
// tests/encoder/bounds48_test.cpp and cover48_test.cpp.
#pragma once

#include <string>

namespace cake::testing::forms {

// corpus/bugs/data.stale-read/pytorch_xpu_find_pattern_flag_left_from_counts_fixed.cake
// without `lm.assume(n_passes <= 16)`, its register and slot counts cut down.
inline const std::string kFindPatternTwoLoops = R"(
@cake.schedule(target="sm_80")
def find_pattern_unbounded_passes(lm, Data: LM.gmem, Out: LM.gmem, n_passes: LM.i32, hit: LM.i32):
    lm.assume(n_passes >= 1)
    lm.assume(hit >= 0)
    pool   = lm.smem(256)
    cnt    = pool.view(offset=0, shape=(1, 8), dtype=lm.i32, stages=4)
    flag   = pool.view(offset=0, shape=(1, 2), dtype=lm.f32)
    zero   = lm.regs(shape=(1, 4), dtype=lm.i32)
    mine   = lm.regs(shape=(1, 4), dtype=lm.i32)
    part   = lm.regs(shape=(1, 4), dtype=lm.i32)
    fz     = lm.regs(shape=(1, 2), dtype=lm.f32)
    fv     = lm.regs(shape=(1, 2), dtype=lm.f32)
    sgs    = lm.role(warps=[0, 1, 2, 3], group=1)
    wgroup = lm.named_barrier(roles=[sgs])
    with sgs:
        w = lm.instance()
        lm.fill(zero, 0)
        for d in lm.range(0, n_passes):
            if w == 0:
                for s in lm.range(0, 4):
                    lm.copy(cnt[s][:, 0:4], zero)
            lm.sync(wgroup)
            lm.copy(mine, Data, coords=(d, 4 * w))
            lm.copy(cnt[w][:, 0:4], mine)
            lm.sync(wgroup)
            lm.copy(part, cnt[0][:, 0:4])
            lm.sync(wgroup)
        if w == 0:
            lm.fill(fz, 0.0)
            lm.copy(flag[0], fz)
        lm.sync(wgroup)
        for i in lm.range(0, hit + 1):
            if i == hit and w == 1:
                lm.copy(fv, Data, coords=(n_passes, 0))
                lm.copy(flag[0], fv)
            lm.sync(wgroup)
            lm.copy(fv, flag[0])
            lm.sync(wgroup)
        lm.copy(Out, fv, coords=(0, 2 * w))
)";

}  // namespace cake::testing::forms
