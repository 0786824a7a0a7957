# mutant: alias-views
# original: corpus/gemm/sm90_mixed_input_w8a16.cake
# line: 27: smem_c  = pool.view(offset=122880, shape=(64, 128), dtype=lm.bf16, stages=2)
# change: offset of smem_c (aliases smem_b): `122880` -> `73728`
# label: bad (sync.race, data.stale-read) by the explicit-state simulator (encoder/simulator.h), M = 0, N = 0, K in {1, 80, 144, 208, 336, 400} (6 combinations with every trip count <= 7); block_idx 0 of grid_dim 1; 1976 states; first violation: sync.race: consumers[1] reads pool [73728, 90112) while consumers[0]'s unordered access it at `lm.copy(smem_c[lm.instance()], acc)` (line 61) (M=0, N=0, K=1)
# expect-any: sync.race data.stale-read
# Hopper mixed-input GEMM, W8A16 (int8 weights, bf16 activations), the
# "dequantize into shared memory" variant: B arrives as int8 through TMA,
# the two consumer warpgroups convert it to bf16 (ld.shared -> cvt ->
# st.shared, each instance converts 64 of the 128 rows), then both run an
# SS wgmma that reads the converted tile.
# (CUTLASS's mixed-dtype mainloop converts in registers and uses RS wgmma;
# this variant exists because the converted tile is shared by both
# warpgroups.)
#  * The st.shared writes are generic-proxy writes read by the async proxy
#    (wgmma): each writer fences (fence_proxy) before the named barrier
#    that publishes its half to the other warpgroup.
#  * The named barrier `conv` (both consumer instances) also guarantees
#    that before slot k%3 of smem_b is rewritten at iteration k+3 both
#    instances have retired the wgmma of iteration k (mma_wait pending=0
#    comes before the next iteration's sync).
#  * smem_bq / smem_a are released on `empty` (2 arrivals per phase) once
#    the conversion and the wgmma are done.
# (the original's expectation: see the label above)
@cake.schedule(target="sm_90a")
def gemm_sm90_w8a16_smem_dequant(lm, A: LM.tma2d, Bq: LM.tma2d, C: LM.tma2d,
                                 M: LM.i32, N: LM.i32, K: LM.i32):
    lm.assume(K > 0)
    pool    = lm.smem(180224)
    smem_a  = pool.view(offset=0,      shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_bq = pool.view(offset=49152,  shape=(128, 64), dtype=lm.i8,   stages=3, swizzle="64B")
    smem_b  = pool.view(offset=73728,  shape=(128, 64), dtype=lm.bf16, stages=3, swizzle="128B")
    smem_c  = pool.view(offset=73728, shape=(64, 128), dtype=lm.bf16, stages=2)
    bq_r    = lm.regs(shape=(64, 64), dtype=lm.bf16)
    acc     = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe  = lm.pipeline(stages=3)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)
    conv  = lm.named_barrier(roles=[consumers])

    k_tiles = lm.cdiv(K, 64)
    m_blk = lm.block_idx(0) * 128
    n_blk = lm.block_idx(1) * 128

    with producer:
        for k in lm.range(0, k_tiles):
            lm.wait(empty, iter=k - 3)
            smem_a.tma_load(A, coords=(m_blk, k * 64), iter=k, barrier=full)
            smem_bq.tma_load(Bq, coords=(n_blk, k * 64), iter=k, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for k in lm.range(0, k_tiles):
            lm.wait(full, iter=k)
            lm.copy(bq_r, smem_bq[k][m0:m0 + 64, :])
            lm.copy(smem_b[k][m0:m0 + 64, :], bq_r)
            lm.fence_proxy()
            lm.sync(conv)
            lm.mma(acc, smem_a[k][m0:m0 + 64, :], smem_b[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        lm.copy(smem_c[lm.instance()], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(m_blk + m0, n_blk), stage=lm.instance())
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
