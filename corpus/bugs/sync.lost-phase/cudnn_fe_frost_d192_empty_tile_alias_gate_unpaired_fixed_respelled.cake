# FIXED form of cudnn_fe_frost_d192_empty_tile_alias_gate_unpaired.cake
# (NVIDIA/cudnn-frontend PR #575): the alias gate is paired on empty tiles
# too - the LDG warp, past its gate wait for an empty tile, signals `pair`,
# and the correction's zero-O chain waits for that signal before it
# overwrites the alias region and arrives on the gate, so the gate's
# arrivals never lead the LDG's waits by more than one phase (the chain of a
# tile with KV depends on the LDG already, through Q -> MMA -> O).
# expect: pass
# RESPELLED: the LDG's gate wait as the kernel's parity bootstrap -
# `stage=0, phase=t - 1`, a wait on phase -1 for the first tile, which
# the hardware passes only while the gate has completed no phase (an
# iteration below zero would pass at once, IR.md) - and the correction's
# arrivals by slot.  So one empty tile whose zero-O chain arrives before
# the LDG's first wait already consumes the bootstrap credit.
@cake.schedule(target="sm_100a")
def cudnn_fe_frost_d192_empty_tile_alias_gate_paired_respelled(lm, Q: LM.tma2d, K: LM.tma2d, O: LM.tma2d, n_tiles: LM.i32, n_empty: LM.i32):
    lm.assume(n_empty >= 0)
    pool    = lm.smem(65536)
    smem_qo = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, swizzle="128B")   # Q u O alias
    smem_k  = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    tmem_o  = lm.tmem(cols=0, width=128, shape=(128, 128), dtype=lm.f32)
    o_r     = lm.regs(shape=(128, 64), dtype=lm.bf16)
    acc_r   = lm.regs(shape=(128, 128), dtype=lm.f32)

    corr = lm.role(warps=[0, 1, 2, 3])
    mma  = lm.role(warps=[4])
    ldg  = lm.role(warps=[5])

    q_full = lm.barrier(count=1, prod=[ldg], cons=[mma], init_count=1)
    k_full = lm.barrier(count=1, prod=[ldg], cons=[mma], init_count=1)
    o_full = lm.barrier(count=1, prod=[mma], cons=[corr], init_count=1)
    gate   = lm.barrier(count=1, prod=[corr], cons=[ldg], init_count=1)     # the Q u O alias gate
    pair   = lm.barrier(count=1, prod=[ldg], cons=[corr], init_count=1)     # the fix: LDG past the gate, empty tile

    with ldg:
        for t in lm.range(0, n_tiles):
            lm.wait(gate, stage=0, phase=t - 1)
            if t >= n_empty:
                smem_qo.tma_load(Q, coords=(128 * t, 0), iter=t - n_empty, barrier=q_full)
                smem_k.tma_load(K, coords=(128 * t, 0), iter=t - n_empty, barrier=k_full)
            else:
                lm.arrive(pair, stage=0)

    with mma:
        for t in lm.range(0, n_tiles):
            if t >= n_empty:
                lm.wait(q_full, iter=t - n_empty)
                lm.wait(k_full, iter=t - n_empty)
                lm.mma(tmem_o, smem_qo[0], smem_k[0], init=True)
                lm.mma_commit(barrier=o_full, iter=t - n_empty)

    with corr:
        for t in lm.range(0, n_tiles):
            if t >= n_empty:
                lm.wait(o_full, iter=t - n_empty)
                lm.tmem_load(acc_r, tmem_o)
                lm.tmem_load_wait()
                lm.copy(o_r, acc_r[:, 0:64])
            else:
                lm.wait(pair, stage=0)                   # the fix: pair the empty tile's chain with the LDG
                lm.fill(o_r, 0.0)
            lm.copy(smem_qo[0], o_r)
            lm.fence_proxy()
            smem_qo.tma_store(O, coords=(128 * t, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.arrive(gate, stage=0)
