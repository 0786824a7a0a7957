# RESPELLING of corpus/bugs/sync.tx-imbalance/mirage_splitk_linear_sm100_unclamped_box_fixed.cake (the fix: the X box clamped to the 8 real rows)
# (mirage-project/mirage PR #705): the rings as count=3 barriers addressed
# with stage=k % 3 and implicit phases (the producer's first lap a guard),
# the expected bytes spelled 2 * 64 * (64 + 8), the X load issued before
# the W load, the k offset folded into one variable.
# expect: pass
@cake.schedule(target="sm_100a")
def splitk_linear_fixed(lm, w_desc: LM.tma2d, x_desc: LM.tma2d, out_desc: LM.tma2d, kps: LM.i32):
    smem = lm.smem(65536)
    ws   = smem.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    xs   = smem.view(offset=24576, shape=(8, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    ps   = smem.view(offset=32768, shape=(64, 8), dtype=lm.f32)
    acc  = lm.tmem(cols=0, width=32, shape=(64, 8), dtype=lm.f32)
    r    = lm.regs(shape=(64, 8), dtype=lm.f32)
    epilogue = lm.role(warps=[0, 1, 2, 3])
    issuer   = lm.role(warps=[4])
    loader   = lm.role(warps=[5])
    full  = lm.barrier(count=3, prod=[loader], cons=[issuer], init_count=1)
    empty = lm.barrier(count=3, prod=[issuer], cons=[loader], init_count=1)
    done  = lm.barrier(count=1, prod=[issuer], cons=[epilogue], init_count=1)
    n0 = 64 * lm.block_idx(0)
    split = lm.block_idx(1)
    with loader:
        for k in lm.range(0, kps):
            if k >= 3:
                lm.wait(empty, stage=k % 3)
            kk = 64 * (split * kps + k)
            lm.expect_tx(full, 2 * 64 * (64 + 8), stage=k % 3)
            xs.tma_load(x_desc, coords=(0, kk), stage=k % 3, barrier=full)
            ws.tma_load(w_desc, coords=(n0, kk), stage=k % 3, barrier=full)
    with issuer:
        for k in lm.range(0, kps):
            lm.wait(full, stage=k % 3)
            lm.mma(acc, ws[k % 3], xs[k % 3], init=(k == 0))
            lm.mma_commit(barrier=empty, stage=k % 3)
        lm.mma_commit(barrier=done, stage=0)
    with epilogue:
        lm.wait(done, stage=0)
        lm.copy(r, acc)
        lm.copy(ps[0], r)
        lm.fence_proxy()
        ps.tma_store(out_desc, coords=(64 * split + n0, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
