# FIXED form of cudnn_fe_dsa_bwd_dkv23_alias_no_t2r_barrier.cake
# (NVIDIA/cudnn-frontend PR #396): the reduce warps T2R dKV2 and dKV3 into
# registers, then bar.arrive on the t2r_dKV23_done named barrier before the
# global atomics; the MMA warp bar.syncs on it after producer_acquire for
# every tile but the first (and once after its loop, matching the last
# arrival), so the next tile's dKV0/dKV1 never overwrite columns that are
# still being read.  At most one arrival is outstanding: the reducer's next
# one needs the next tile's dKV2/dKV3, which the MMA warp issues only after
# its sync.
# expect: pass
@cake.schedule(target="sm_100a")
def cudnn_fe_dsa_bwd_dkv23_alias_no_t2r_barrier_fixed(lm, PdO: LM.tma3d, dSQ: LM.tma3d, dKV: LM.gmem,
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
    t2r_dkv23_done = lm.named_barrier(roles=[reduce, mma])   # the fix (barrier_id 9)

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
            if t > 0:
                lm.sync(t2r_dkv23_done)                # tile t - 1's dKV2/dKV3 are in registers
            lm.mma(tmem_01, smem_a[t], smem_b[t], init=True)
            lm.mma_commit(barrier=dkv_full, iter=g)
            lm.wait(dkv_empty, iter=g - 1)
            lm.mma(tmem_4, smem_a[t], smem_c[t], init=True)                   # dKV4
            lm.mma_commit(barrier=dkv_full, iter=g + 1)
            lm.wait(dkv_empty, iter=g)
            lm.mma(tmem_01, smem_a[t], smem_b[t], init=True)                  # dKV2|dKV3 over dKV0|dKV1
            lm.mma_commit(barrier=op_empty, iter=t)                           # consumer_release(QdO)
            lm.mma_commit(barrier=dkv_full, iter=g + 2)
        lm.sync(t2r_dkv23_done)                        # balances the reducer's last one-way arrival

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
            lm.wait(dkv_full, iter=g + 2)              # part2: T2R dKV2 and dKV3 first
            lm.tmem_load(ra, tmem_01[:, 0:64])
            lm.tmem_load(rb, tmem_01[:, 64:128])
            lm.tmem_load_wait()
            lm.bar_arrive(t2r_dkv23_done)              # the columns are free: no wait for the MMA warp
            lm.arrive(dkv_empty, iter=g + 2)
            lm.copy(dKV, ra, coords=(t, 0, 256))       # then the slow atomics
            lm.copy(dKV, rb, coords=(t, 0, 320))
