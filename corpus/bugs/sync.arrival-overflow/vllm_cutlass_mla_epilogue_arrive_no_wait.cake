# BUG (sync.arrival-overflow): the CUTLASS SM100 MLA kernel as vLLM carried it
# (csrc/attention/mla/cutlass_sm100_mla/kernel/
# sm100_fmha_mla_tma_warpspecialized.hpp), fixed by vllm-project/vllm
# PR #26026 ("Fix CUTLASS MLA hang under load").  When a split has no KV
# tiles (k_tile_count == 0) the compute warps take an early return that
# only ARRIVES on the epilogue named barrier kNamedBarrierEpilogue
# (NamedBarrier(...).arrive()) and loop to the next work tile, while the
# load warps arrive_and_wait on it for every tile.  A bar.arrive does not
# wait for the generation to complete, so the compute warps can arrive for
# the next tile too: their two arrivals complete one generation without
# the load warps, whose bar.sync then joins the next generation, which no
# one completes: the load warps hang (and with them the kernel).
# cake names the cause: the compute warps' second bar.arrive brings the
# generation to 8 warps where its roles have 5 (bar.arrive carries no
# identity: PTX leaves an arrival into a generation that is already
# complete undefined; on the GPU it was this hang).
# Modelled: 4 compute warps and 1 load warp, a persistent loop over the
# CTA's work tiles, and kv_tiles (per split) as a parameter: kv_tiles == 0
# is the early-return path (taken by every tile of the split here).  The
# mainloop, written on sm_90a (TMA + wgmma), only gives the tiles work; the
# bug is the barrier.
# Fix: vllm_cutlass_mla_epilogue_arrive_no_wait_fixed.cake (arrive_and_wait).
# expect: sync.arrival-overflow
@cake.schedule(target="sm_90a")
def mla_epilogue_arrive_no_wait(lm, Q: LM.tma2d, KV: LM.tma2d, O: LM.gmem,
                                kv_tiles: LM.i32, tiles: LM.i32):
    lm.assume(kv_tiles >= 0)
    lm.assume(tiles > 0)
    pool    = lm.smem(65536)
    smem_q  = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    smem_kv = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    s_acc   = lm.regs(shape=(64, 64), dtype=lm.f32)

    compute = lm.role(warps=[0, 1, 2, 3])
    load    = lm.role(warps=[4])

    kv    = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[load], cons=[compute], init_count=1, pipeline=kv)
    empty = lm.barrier(prod=[compute], cons=[load], init_count=1, pipeline=kv)
    q_full = lm.barrier(count=1, prod=[load], cons=[compute], init_count=1)
    epi   = lm.named_barrier(roles=[compute, load])

    with load:
        for t in lm.range(0, tiles):
            if kv_tiles > 0:
                smem_q.tma_load(Q, coords=(t * 64, 0), iter=t, barrier=q_full)
                for j in lm.range(0, kv_tiles):
                    it = t * kv_tiles + j
                    lm.wait(empty, iter=it - 2)
                    smem_kv.tma_load(KV, coords=(j * 64, 0), iter=it, barrier=full)
            lm.sync(epi)

    with compute:
        for t in lm.range(0, tiles):
            if kv_tiles == 0:
                lm.bar_arrive(epi)  # expect-error: sync.arrival-overflow
            else:
                lm.wait(q_full, iter=t)
                for j in lm.range(0, kv_tiles):
                    it = t * kv_tiles + j
                    lm.wait(full, iter=it)
                    lm.mma(s_acc, smem_q, smem_kv[it], init=(j == 0))
                    lm.mma_commit()
                    lm.mma_wait(pending=0)
                    lm.arrive(empty, iter=it)
                lm.copy(O, s_acc, coords=(t * 64, 0))
                lm.sync(epi)
