// A small correct schedule for tests of any area: a TMA warp fills a 2-slot
// ring (full / empty barriers) that a warpgroup consumes with an MMA and
// releases. Tests edit it by string replacement and locate findings in it,
// so its lines are part of the contract: 'full' is declared on line 8,
// 'empty' on line 9, the consumer's lm.wait(full, ...) is at 16:13.
// (Namespace cake_test, as tests/cli/run_command.h: tests/cli has a
// function named cake.)
#pragma once

namespace cake_test {

inline constexpr const char* kRingSchedule = R"(@cake.schedule(target="sm_90a")
def ring(lm, A: LM.tma2d, K: LM.i32):
    pool = lm.smem(65536)
    a = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2)
    load = lm.role(warps=[0])
    use = lm.role(warps=[4, 5, 6, 7], group=4)
    acc = lm.regs(shape=(64, 64), dtype=lm.f32)
    full = lm.barrier(count=2, prod=[load], cons=[use], init_count=1)
    empty = lm.barrier(count=2, prod=[use], cons=[load], init_count=1)
    with load:
        for k in lm.range(0, K):
            lm.wait(empty, iter=k - 2)
            a.tma_load(A, coords=(0, k), iter=k, barrier=full)
    with use:
        for k in lm.range(0, K):
            lm.wait(full, iter=k)
            lm.mma(acc, a[k], a[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
)";

}  // namespace cake_test
