// two50's reduced tail ring (session 50, docs/z3.md "A loop's dead tail cut
// at a guard's threshold"): one loader, one consumer, m of n iterations
// loaded. Shared by tail_cut50_test.cpp and sound51_test.cpp.
#pragma once

#include <string>

namespace cake::testing::tail_ring {

inline const std::string kTailRing = R"(@cake.schedule(target="sm_90a")
def tail_cut(lm, X: LM.tma2d, Out: LM.gmem, m: LM.i32, n: LM.i32):
    lm.assume(m >= 1)
    lm.assume(m <= n)
    pool = lm.smem(8192)
    xs   = pool.view(offset=0, shape=(4, 256), dtype=lm.f32, stages=2)
    rows = lm.regs(shape=(4, 256), dtype=lm.f32)

    cons = lm.role(warps=[0])
    load = lm.role(warps=[1])

    ring  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[cons], init_count=1, pipeline=ring)
    empty = lm.barrier(prod=[cons], cons=[load], init_count=1, pipeline=ring)

    with load:
        for i in lm.range(0, n):
            if i < m:
                lm.wait(empty, iter=i - 2)
                xs.tma_load(X, coords=(4 * i, 0), iter=i, barrier=full)

    with cons:
        for i in lm.range(0, n):
            if i < m:
                lm.wait(full, iter=i)
                lm.copy(rows, xs[i])
                lm.fence_proxy()
                lm.arrive(empty, iter=i)
                lm.copy(Out, rows, coords=(4 * i, 0))
)";

}  // namespace cake::testing::tail_ring
