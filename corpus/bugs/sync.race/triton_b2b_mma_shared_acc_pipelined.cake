# BUG (sync.race): triton-lang/triton issue #10821, fixed by PR #10858
# ("[Blackwell] Fix incorrectly pipelined back-to-back MMAs sharing the
# same accumulator", relanded as PR #10988).  A loop whose two dots chain
# one accumulator (acc = dot(a1, b1, acc); acc = dot(a2, b2, acc); yield
# acc) is lowered with one TMEM accumulator per tcgen05 MMA (MMA1 -> acc0,
# tmem_load acc0, tmem_store acc1, MMA2 -> acc1, and the loop-carried value
# copied back into acc0 at the next iteration).  The pipeliner gave MMA2 a
# latency and put its wait in the next stage, so iteration i+1 copies the
# loop-carried accumulator out of acc1 and issues MMA1(i+1) before MMA2(i)
# has finished writing acc1.  The fix (AssignLatencies) gives no latency to
# MMAs whose accumulator is part of a cyclic chain across the loop: MMA2's
# wait stays in its own iteration.
# Modelled: a non-warp-specialized 4-warp kernel (one warpgroup instance,
# which reaches all 128 TMEM lanes), 128x128 f32 accumulators acc0 / acc1,
# each MMA committed to its own one-slot barrier and waited by the same
# warpgroup (Triton's tc_gen5_mma with a barrier, wait_barrier), the
# acc0 <-> acc1 copies as tcgen05.ld / tcgen05.st with their waits, the
# loop-carried value zero-initialized before the loop.  Left out: the
# operands' own pipeline (each operand is one tile loaded once).
# Fix: triton_b2b_mma_shared_acc_pipelined_fixed.cake.
# expect: sync.race
@cake.schedule(target="sm_100a")
def triton_b2b_mma_shared_acc_pipelined(lm, A1: LM.tma2d, B1: LM.tma2d, A2: LM.tma2d, B2: LM.tma2d,
                                        C: LM.gmem, n: LM.i32):
    lm.assume(n >= 1)
    pool = lm.smem(65536)
    sa1  = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    sb1  = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    sa2  = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    sb2  = pool.view(offset=49152, shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    acc0 = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)
    acc1 = lm.tmem(cols=128, width=128, shape=(128, 128), dtype=lm.f32)
    r    = lm.regs(shape=(128, 128), dtype=lm.f32)
    wg   = lm.role(warps=[0, 1, 2, 3])
    ld   = lm.barrier(count=1, prod=[wg], cons=[wg], init_count=1)
    bar1 = lm.barrier(count=1, prod=[wg], cons=[wg], init_count=1)
    bar2 = lm.barrier(count=1, prod=[wg], cons=[wg], init_count=1)
    with wg:
        sa1.tma_load(A1, coords=(0, 0), stage=0, barrier=ld)
        sb1.tma_load(B1, coords=(0, 0), stage=0, barrier=ld)
        sa2.tma_load(A2, coords=(0, 0), stage=0, barrier=ld)
        sb2.tma_load(B2, coords=(0, 0), stage=0, barrier=ld)
        lm.wait(ld, stage=0)
        lm.fill(r, 0.0)
        lm.tmem_store(acc1, r)
        lm.tmem_store_wait()
        for i in lm.range(0, n):
            lm.tmem_load(r, acc1)                # expect-error: sync.race
            lm.tmem_load_wait()
            lm.tmem_store(acc0, r)
            lm.tmem_store_wait()
            lm.mma(acc0, sa1[0], sb1[0])
            lm.mma_commit(barrier=bar1, iter=i)
            if i > 0:                             # BUG: MMA2(i - 1) is waited a stage late
                lm.wait(bar2, iter=i - 1)
            lm.wait(bar1, iter=i)
            lm.tmem_load(r, acc0)
            lm.tmem_load_wait()
            lm.tmem_store(acc1, r)
            lm.tmem_store_wait()
            lm.mma(acc1, sa2[0], sb2[0])          # expect-error: sync.race
            lm.mma_commit(barrier=bar2, iter=i)
        lm.wait(bar2, iter=n - 1)
        lm.tmem_load(r, acc1)
        lm.tmem_load_wait()
        lm.copy(C, r, coords=(0, 0))
