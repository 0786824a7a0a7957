# A TMA ring whose consumer arms the full barrier itself: the warpgroup that
# waits on a slot issues the arrive.expect_tx for it right before its wait,
# and the loader only issues the copies (no arrival of its own). This is how
# FlashMLA's Hopper decode kernel (deepseek-ai/FlashMLA
# csrc/sm90/kernels/splitkv_mla.cu @ 69f3193119c0a5c27417f42f4ddbf3c333b3a76c,
# qkt_gemm_one_tile_sQ: `if (idx_in_warpgroup == 0)
# barrier->arrive_and_expect_tx(64*64*2); barrier->wait(cur_phase)`) arms its
# per-tile K barriers, whose TMA loads the other warpgroup issues. A barrier
# that some role arms with lm.expect_tx gets no derived expect_tx for any
# role (docs/semantics.md "Derived expect_tx"), so the loader's copies add
# bytes only. The copies may land before the arrival: the transaction count
# goes below zero and the phase waits for the arrival (PTX ISA, mbarrier
# tx-count). Two 64x64 bf16 tiles per slot (8192 bytes each).
# expect: pass
@cake.schedule(target="sm_90a")
def consumer_armed_barrier(lm, A: LM.tma2d, B: LM.tma2d, O: LM.gmem, n_tiles: LM.i32):
    lm.assume(n_tiles > 0)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)

    load = lm.role(warps=[0])
    math = lm.role(warps=[4, 5, 6, 7])
    full  = lm.barrier(count=2, prod=[load, math], cons=[math], init_count=1)
    empty = lm.barrier(count=2, prod=[math], cons=[load], init_count=1)

    with load:
        for k in lm.range(0, n_tiles):
            lm.wait(empty, iter=k - 2)
            smem_a.tma_load(A, coords=(0, 64 * k), iter=k, barrier=full)
            smem_b.tma_load(B, coords=(0, 64 * k), iter=k, barrier=full)

    with math:
        for k in lm.range(0, n_tiles):
            lm.expect_tx(full, 2 * 64 * 64 * 2, iter=k)
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(O, acc, coords=(lm.block_idx(0) * 64, 0))
