# FIXED: sm80_kslice_refill_under_last_kstep.cake with the refill of slot
# k % 4 (k-block k + 4) issued after the MMAs over the slot's last k-step
# smem_a[k][:, 16:32] / smem_b[k][:, 16:32]: no read of the slot follows the
# copy until the wait of iteration k + 3 has retired it. The lowering syncs
# the instance between those reads and the copies (docs/gpu.md, "instance
# syncs"), one more bar.sync per k-block than
# the schedules in bench/gpu/schedules/sm80/kslice/, which refill the slot
# read one k-block earlier instead.
# expect: pass
@cake.schedule(target="sm_80")
def gemm_sm80_kslice_refill_after_last_kstep(lm, A: LM.gmem, B: LM.gmem, C: LM.gmem,
                                             M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(65536)
    smem_a = pool.view(offset=0,     shape=(128, 32), dtype=lm.bf16, stages=4, swizzle="64B")
    smem_b = pool.view(offset=32768, shape=(128, 32), dtype=lm.bf16, stages=4, swizzle="64B")
    acc    = lm.regs(shape=(128, 128), dtype=lm.f32)
    out    = lm.regs(shape=(128, 128), dtype=lm.bf16)

    mainloop = lm.role(warps=[0, 1, 2, 3])

    k_tiles = lm.cdiv(K, 32)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with mainloop:
        for s in lm.range(0, 4):
            if s < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, s * 32), stage=s)
                smem_b.cp_async(B, coords=(n_blk, s * 32), stage=s)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=3)
        for k in lm.range(0, k_tiles):
            lm.mma(acc, smem_a[k][:, 0:16], smem_b[k][:, 0:16], init=(k == 0))
            lm.cp_async_wait(pending=2)
            lm.mma(acc, smem_a[k][:, 16:32], smem_b[k][:, 16:32])
            kn = k + 4
            if kn < k_tiles:
                smem_a.cp_async(A, coords=(m_blk, kn * 32), iter=kn)
                smem_b.cp_async(B, coords=(n_blk, kn * 32), iter=kn)
            lm.cp_async_commit()
        lm.cp_async_wait(pending=0)
        lm.copy(out, acc)
        lm.copy(C, out, coords=(m_blk, n_blk))
