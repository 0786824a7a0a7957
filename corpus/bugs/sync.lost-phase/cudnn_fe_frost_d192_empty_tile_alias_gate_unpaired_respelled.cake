# BUG (sync.lost-phase): NVIDIA/cudnn-frontend PR #575 ("sdpa: fix SM100
# frost zero-KV cluster deadlock + enable zero-length seq_len_kv sweeps",
# merged 2026-08-13), commit 1: "fix an SM100 cluster deadlock on zero-KV
# varlen tiles".  The frost SM100 d192 SDPA forward (CuTe DSL) keeps Q and
# the O staging tile in one shared-memory region (the "Q u O alias"): the
# TMA-LDG warp waits on an "alias gate" mbarrier before it loads the next
# tile's Q over the previous tile's O, and the correction -> TMA-STG chain
# arrives on the gate once its O store has drained.  A zero-length
# seq_len_kv gives an EMPTY tile (the KV loop bounds collapse): the MMA warp
# does nothing and the correction stores a zero O.  "On empty tiles the
# correction->TMA-STG chain that arrives the d192 Q u O alias gate has no
# dependency on the TMA-LDG warp, so a delayed LDG loses the race and its
# parity bootstrap credit is consumed by a real arrive - mbarrier parity
# waits cannot recover once a producer leads by two phases, so LDG parks
# forever and the whole cluster wedges (MMA starves on mb_q_full, softmax
# on mb_bmm1_done)" (root-caused with cuda-gdb shared-memory dumps: the gate
# at phase 1 with LDG never past its first wait).  The fix pairs the gate:
# the empty-tile chain waits for the LDG's Q of the tile before it writes
# and arrives (issue #610 notes the hang "vanished only with the alias-gate
# pairing that ships in #575").
# Modelled: a persistent CTA's tiles, the first n_empty of them empty
# (zero-KV sequences); LDG brings Q (and, for a tile with KV, K) into the
# alias region (q_full / k_full, numbered by the tiles with KV) after
# waiting the gate (iter=t-1: the bootstrap credit lets the first wait
# pass) and loads nothing for an empty tile; the MMA warp (one MMA per tile
# with KV standing for the S / O GEMMs) commits o_full; the correction
# warpgroup reads O out
# of TMEM (or zero-fills it for an empty tile), stages it over Q, TMA-stores
# it, waits for the store to drain and arrives on the gate.  Left out: the
# softmax warpgroup, V and the KV loop, the CLC scheduler, the cluster.
# Fix: cudnn_fe_frost_d192_empty_tile_alias_gate_unpaired_fixed.cake.
# expect: sync.lost-phase
# may-also: sync.race sync.deadlock sync.arrival-overflow sync.stale-phase data.stale-read
# RESPELLED: the LDG's gate wait as the kernel's parity bootstrap -
# `stage=0, phase=t - 1`, a wait on phase -1 for the first tile, which
# the hardware passes only while the gate has completed no phase (an
# iteration below zero would pass at once, IR.md) - and the correction's
# arrivals by slot.  So one empty tile whose zero-O chain arrives before
# the LDG's first wait already consumes the bootstrap credit.
@cake.schedule(target="sm_100a")
def cudnn_fe_frost_d192_empty_tile_alias_gate_unpaired_respelled(lm, Q: LM.tma2d, K: LM.tma2d, O: LM.tma2d, n_tiles: LM.i32, n_empty: LM.i32):
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

    with ldg:
        for t in lm.range(0, n_tiles):
            lm.wait(gate, stage=0, phase=t - 1)          # expect-error: sync.lost-phase
            if t >= n_empty:
                smem_qo.tma_load(Q, coords=(128 * t, 0), iter=t - n_empty, barrier=q_full)
                smem_k.tma_load(K, coords=(128 * t, 0), iter=t - n_empty, barrier=k_full)

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
                lm.fill(o_r, 0.0)                        # BUG: an empty tile waits for nothing of the LDG's
            lm.copy(smem_qo[0], o_r)
            lm.fence_proxy()
            smem_qo.tma_store(O, coords=(128 * t, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.arrive(gate, stage=0)
