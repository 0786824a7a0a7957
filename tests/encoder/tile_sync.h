// Two warps that sync a named barrier at every tile start and in every K
// iteration around a per-tile shared table (docs/known-limits.md's
// reproducer of "a named barrier synced before the K loop and inside it";
// docs/z3.md "A view over a ring that moves with the tiles", part 2):
// shared by trip_proof_test.cpp, trip_gaps_test.cpp and
// sound34_attacks_test.cpp.
#pragma once

namespace cake::testing {

inline constexpr const char* kTileSyncTwoWarps = R"(@cake.schedule(target="sm_80")
def tile_sync(lm, X: LM.gmem, Out: LM.gmem, n_tiles: LM.i32, kb: LM.i32):
    lm.assume(kb >= 1)
    pool  = lm.smem(1024)
    ids   = pool.view(offset=0, shape=(1, 32), dtype=lm.i32, stages=2)
    xs    = pool.view(offset=256, shape=(1, 32), dtype=lm.i32, stages=2)
    v     = lm.regs(shape=(1, 32), dtype=lm.i32)
    warps = lm.role(warps=[0, 1], group=1)
    cta   = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        lm.fill(v, 1)
        for t in lm.range(0, n_tiles):
            lm.sync(cta)
            lm.copy(ids[w], v)
            lm.sync(cta)
            for k in lm.range(0, kb):
                lm.copy(xs[w], v)
                lm.sync(cta)
                lm.copy(v, xs[1 - w])
                lm.sync(cta)
            lm.copy(v, ids[1 - w])
            lm.copy(Out, v, coords=(t, 32 * w))
)";

}  // namespace cake::testing
