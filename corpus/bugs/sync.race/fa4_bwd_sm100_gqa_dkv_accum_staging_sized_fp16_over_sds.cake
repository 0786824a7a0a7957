# BUG (sync.race): Dao-AILab/flash-attention PR #2035 ("[Cute] Fix head
# dim 64 bwd", merged 2025-11-26), its third fix: "a race condition in
# epilogue dK that would cause the smem tensor to overlap with what was
# needed for sdS and this made dQ have bad values but dk was good since it
# was not using shared memory ... in the non MHA path we were allocating in
# fp16 and we should have been using fp32" (found by moving sdO to the end
# of the shared-storage struct, which turned the overlap into an
# out-of-bounds access under compute-sanitizer).  FA4's SM100 backward
# (flash_attn/cute/flash_bwd_sm100.py): with GQA (qhead_per_kvhead > 1) the
# compute warps stage the fp32 dK / dV partial sums in `sdKV` and
# reduce-add them into the fp32 dKaccum / dVaccum in global memory
# (`sdKV_layout = make_layout((tile_n * dK_reduce_ncol, 2))`, Float32
# accumulators); the shared-storage member was sized with the fp16 element
# type, so the fp32 staging ran past its reservation into `sdS`.  The MMA
# warp lets the epilogue start under the tail: it commits `dv_done` after
# the last dV MMA and then issues the tail dQ MMA, which still reads dS
# from `sdS` (stored flash_bwd_sm100.py: `# signal to the epilogue that dV
# is ready` - `pipeline_dKV.sync_object_full.arrive(0, ...)` - then
# `###### Remaining 2`: dK += dS.T @ Q and dQ of the last Q block, both
# reading dS) - the compute warps' fp32 st.shared of dV into the
# staging overwrites dS under it, so dQ of the tile's last Q block is wrong
# and dK / dV are right.
# Modelled: one KV tile of `steps` Q blocks; the staging reservation of
# the bug as the offset of sdS: the staging view holds (128, 32) fp32 =
# 16384 bytes, but sdS starts 8192 bytes after it (the fp16 size); the
# fixed file places sdS after the full fp32 size.  dV += P^T dO is stood for
# by an MMA over the step's dS and Q tiles (P lives in TMEM in FA4); dQ of
# every step is read out of TMEM by the dQ reduce warps (dq_full /
# dq_empty) and dV's reduce-add into dVaccum by a TMA store from the
# staging.  Left out: S / dP, dK and its own epilogue (the same staging),
# LSE / dPsum, the second compute warpgroup, the dQ smem staging.
# Fix: fa4_bwd_sm100_gqa_dkv_accum_staging_sized_fp16_over_sds_fixed.cake.
# expect: sync.race
# may-also: data.stale-read
@cake.schedule(target="sm_100a")
def fa4_bwd_sm100_gqa_dkv_accum_staging_sized_fp16_over_sds(lm, Q: LM.tma2d, K: LM.tma2d, DVacc: LM.tma2d, DQ: LM.gmem, steps: LM.i32):
    lm.assume(steps >= 1)
    pool    = lm.smem(65536)
    smem_q  = pool.view(offset=0,     shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")   # Q / dO ring
    smem_k  = pool.view(offset=16384, shape=(64, 64),  dtype=lm.bf16, swizzle="128B")             # K of the tile
    sdKV    = pool.view(offset=24576, shape=(128, 32), dtype=lm.f32)                               # fp32 dV partials: 16384 B
    sdS     = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, swizzle="128B")             # BUG: 24576 + 8192 (fp16 size)
    tmem_dv = lm.tmem(cols=0,  width=32, shape=(128, 32), dtype=lm.f32)
    tmem_dq = lm.tmem(cols=64, width=64, shape=(128, 64), dtype=lm.f32)
    ds_r    = lm.regs(shape=(128, 64), dtype=lm.bf16)
    dv_r    = lm.regs(shape=(128, 32), dtype=lm.f32)
    dq_r    = lm.regs(shape=(128, 64), dtype=lm.f32)

    reduce  = lm.role(warps=[0, 1, 2, 3])
    compute = lm.role(warps=[4, 5, 6, 7])
    mma     = lm.role(warps=[8])
    load    = lm.role(warps=[9])

    pipe     = lm.pipeline(stages=2)
    q_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=pipe)
    q_empty  = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=pipe)
    k_full   = lm.barrier(count=1, prod=[load], cons=[mma], init_count=1)
    ds_full  = lm.barrier(count=1, prod=[compute], cons=[mma], init_count=1)
    ds_empty = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    dv_done  = lm.barrier(count=1, prod=[mma], cons=[compute], init_count=1)
    dq_full  = lm.barrier(count=1, prod=[mma], cons=[reduce], init_count=1)
    dq_empty = lm.barrier(count=1, prod=[reduce], cons=[mma], init_count=1)

    with load:
        smem_k.tma_load(K, coords=(0, 64 * lm.block_idx(0)), stage=0, barrier=k_full)
        for j in lm.range(0, steps):
            lm.wait(q_empty, iter=j - 2)
            smem_q.tma_load(Q, coords=(0, 64 * j), iter=j, barrier=q_full)

    with mma:
        lm.wait(k_full, stage=0)
        for j in lm.range(0, steps):
            lm.wait(q_full, iter=j)
            lm.wait(ds_full, iter=j)
            lm.mma(tmem_dv, sdS[j], smem_q[j][0:32, :], init=(j == 0))          # dV += P^T dO
            if j == steps - 1:
                lm.mma_commit(barrier=dv_done, stage=0)   # dV complete: the epilogue runs under the tail
            lm.wait(dq_empty, iter=j - 1)
            lm.mma(tmem_dq, sdS[j], smem_k[0], init=True)                         # expect-error: sync.race
            lm.mma_commit(barrier=q_empty, iter=j)
            lm.mma_commit(barrier=ds_empty, iter=j)
            lm.mma_commit(barrier=dq_full, iter=j)

    with compute:
        for j in lm.range(0, steps):
            lm.fill(ds_r, 0.5)                            # dS = P * (dP - dPsum)
            lm.wait(ds_empty, iter=j - 1)
            lm.copy(sdS[j], ds_r)
            lm.fence_proxy()
            lm.arrive(ds_full, iter=j)
        lm.wait(dv_done, stage=0)
        lm.tmem_load(dv_r, tmem_dv)
        lm.tmem_load_wait()
        lm.copy(sdKV[0], dv_r)                                                    # expect-error: sync.race
        lm.fence_proxy()
        sdKV.tma_store(DVacc, coords=(128 * lm.block_idx(0), 0), stage=0)         # reduce-add into dVaccum
        lm.tma_store_commit()
        lm.tma_store_wait(pending=0)

    with reduce:
        for j in lm.range(0, steps):
            lm.wait(dq_full, iter=j)
            lm.tmem_load(dq_r, tmem_dq)
            lm.tmem_load_wait()
            lm.arrive(dq_empty, iter=j)
            lm.copy(DQ, dq_r, coords=(128 * j, 0))
