# FIXED form of triton_b2b_mma_shared_acc_pipelined.cake (triton-lang/triton
# PR #10858): MMA2, whose accumulator is loop-carried into MMA1 of the next
# iteration, gets no pipeline latency, so its wait stays in its own
# iteration, before the loop-carried copy out of acc1.
# expect: pass
@cake.schedule(target="sm_100a")
def triton_b2b_mma_shared_acc_unpipelined(lm, A1: LM.tma2d, B1: LM.tma2d, A2: LM.tma2d, B2: LM.tma2d,
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
            lm.tmem_load(r, acc1)
            lm.tmem_load_wait()
            lm.tmem_store(acc0, r)
            lm.tmem_store_wait()
            lm.mma(acc0, sa1[0], sb1[0])
            lm.mma_commit(barrier=bar1, iter=i)
            lm.wait(bar1, iter=i)
            lm.tmem_load(r, acc0)
            lm.tmem_load_wait()
            lm.tmem_store(acc1, r)
            lm.tmem_store_wait()
            lm.mma(acc1, sa2[0], sb2[0])
            lm.mma_commit(barrier=bar2, iter=i)
            lm.wait(bar2, iter=i)                 # the fix: MMA2 waited in its own iteration
        lm.tmem_load(r, acc1)
        lm.tmem_load_wait()
        lm.copy(C, r, coords=(0, 0))
