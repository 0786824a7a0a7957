# BUG (sync.race): NVIDIA/cudnn-frontend PR #396 ("Fix latent TMEM WAR race
# in the SM100 DSA backward dKV drain (head_dim 576)", merged 2026-07-15).
# python/cudnn/deepseek_sparse_attention/sparse_attention_backward/
# dsa_bwd_sm100.py (FlashAttentionDSABackwardSm100): the MMA warp produces
# each sparse KV tile's dKV in three generations of the two-stage
# mma_reduce_dKV ring - dKV0/dKV1, the 64-wide tail dKV4, then dKV2/dKV3 -
# and the reduce warps drain each generation out of TMEM (T2R) into global
# atomics.  With head_dim 576 (not same_hdim_kv) dKV2/dKV3 alias the TMEM
# columns of dKV0/dKV1.  The next tile's producer_acquire for dKV0 waits on
# ring slot (3t + 3) % 2, i.e. on the consumer_release of the dKV4
# generation two steps back - not on the dKV2/dKV3 generation - while
# reduce_dKV's part2 still reads dKV2/dKV3 out of TMEM inside store_dKV,
# interleaved with its slow global atomics: the MMA warp overwrites those
# columns with the next tile's dKV0/dKV1 before they are read, "a
# write-after-read race on TMEM that silently corrupts dKV".  The fix T2Rs
# dKV2/dKV3 into registers first and arrives on a dedicated named barrier
# (t2r_dKV23_done) before the atomics; the MMA warp arrive_and_waits on it
# after producer_acquire for every tile but the first, and once more after
# its tile loop to balance the reducer's last one-way arrival.
# Modelled: one CTA's persistent loop over n sparse KV tiles; a load warp
# brings each tile's P^T/dO and dS^T/Q operand tiles through a 2-slot ring
# (P and dS come from the compute warpgroup in the kernel: left out, with
# S, dP, dQ and LSE); dKV0|dKV1 and dKV2|dKV3 are one 128-column TMEM
# region, dKV4 a 64-column one; the reduce warpgroup is one instance; the
# global atomics are plain stores.
# Fix: cudnn_fe_dsa_bwd_dkv23_alias_no_t2r_barrier_fixed.cake.
# expect: sync.race
# may-also: data.discarded-product
@cake.schedule(target="sm_100a")
def cudnn_fe_dsa_bwd_dkv23_alias_no_t2r_barrier(lm, PdO: LM.tma3d, dSQ: LM.tma3d, dKV: LM.gmem,
                                                n_tiles: LM.i32):
    lm.assume(n_tiles > 0)
    pool    = lm.smem(131072)
    smem_a  = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_b  = pool.view(offset=32768, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_c  = pool.view(offset=65536, shape=(64, 64),  dtype=lm.bf16, stages=2, swizzle="128B")
    tmem_01 = lm.tmem(cols=0,   width=128, shape=(128, 128), dtype=lm.f32)   # dKV0|dKV1, later dKV2|dKV3
    tmem_4  = lm.tmem(cols=128, width=64,  shape=(128, 64),  dtype=lm.f32)   # dKV4 (64-wide tail)
    ra = lm.regs(shape=(128, 64), dtype=lm.f32)
    rb = lm.regs(shape=(128, 64), dtype=lm.f32)

    reduce = lm.role(warps=[0, 1, 2, 3])
    mma    = lm.role(warps=[4])
    load   = lm.role(warps=[5])

    opring    = lm.pipeline(stages=2)
    dkvring   = lm.pipeline(stages=2)                  # mma_reduce_dKV_stage = 2
    op_full   = lm.barrier(prod=[load], cons=[mma], init_count=1, pipeline=opring)
    op_empty  = lm.barrier(prod=[mma], cons=[load], init_count=1, pipeline=opring)
    dkv_full  = lm.barrier(prod=[mma], cons=[reduce], init_count=1, pipeline=dkvring)
    dkv_empty = lm.barrier(prod=[reduce], cons=[mma], init_count=1, pipeline=dkvring)

    with load:
        for t in lm.range(0, n_tiles):
            lm.wait(op_empty, iter=t - 2)
            smem_a.tma_load(PdO, coords=(t, 0, 0), iter=t, barrier=op_full)      # P^T
            smem_b.tma_load(PdO, coords=(t, 128, 0), iter=t, barrier=op_full)    # dO^T / Q^T
            smem_c.tma_load(dSQ, coords=(t, 0, 0), iter=t, barrier=op_full)      # tail operand

    with mma:
        for t in lm.range(0, n_tiles):
            g = 3 * t
            lm.wait(op_full, iter=t)
            lm.wait(dkv_empty, iter=g - 2)             # producer_acquire: the dKV4 release, two back
            # BUG: nothing orders the reduce warps' dKV2/dKV3 T2R of tile t - 1 before this write
            lm.mma(tmem_01, smem_a[t], smem_b[t], init=True)                  # expect-error: sync.race
            lm.mma_commit(barrier=dkv_full, iter=g)
            lm.wait(dkv_empty, iter=g - 1)
            lm.mma(tmem_4, smem_a[t], smem_c[t], init=True)                   # dKV4
            lm.mma_commit(barrier=dkv_full, iter=g + 1)
            lm.wait(dkv_empty, iter=g)
            lm.mma(tmem_01, smem_a[t], smem_b[t], init=True)                  # dKV2|dKV3 over dKV0|dKV1
            lm.mma_commit(barrier=op_empty, iter=t)                           # consumer_release(QdO)
            lm.mma_commit(barrier=dkv_full, iter=g + 2)

    with reduce:
        for t in lm.range(0, n_tiles):
            g = 3 * t
            lm.wait(dkv_full, iter=g)                  # part1: dKV0/dKV1
            lm.tmem_load(ra, tmem_01[:, 0:64])
            lm.tmem_load(rb, tmem_01[:, 64:128])
            lm.tmem_load_wait()
            lm.arrive(dkv_empty, iter=g)
            lm.copy(dKV, ra, coords=(t, 0, 0))         # atomics of dKV0, dKV1
            lm.copy(dKV, rb, coords=(t, 0, 64))
            lm.wait(dkv_full, iter=g + 1)              # dKV4
            lm.tmem_load(ra, tmem_4)
            lm.tmem_load_wait()
            lm.arrive(dkv_empty, iter=g + 1)
            lm.copy(dKV, ra, coords=(t, 0, 512))
            lm.wait(dkv_full, iter=g + 2)              # part2: store_dKV reads dKV2, atomics, dKV3, atomics
            lm.tmem_load(ra, tmem_01[:, 0:64])         # expect-error: sync.race
            lm.tmem_load_wait()
            lm.copy(dKV, ra, coords=(t, 0, 256))
            lm.tmem_load(rb, tmem_01[:, 64:128])       # expect-error: sync.race
            lm.tmem_load_wait()
            lm.copy(dKV, rb, coords=(t, 0, 320))
            lm.arrive(dkv_empty, iter=g + 2)
