# BUG (proxy.missing-fence): MoonshotAI/FlashKDA issue #24, fixed by PR #25
# (csrc/smxx/fwd_kernel2.cuh, HasStateIn=false with a BF16 state store).
# All threads zero the recurrent state tile in shared memory with ordinary
# stores; the chunk loop updates it and fences (fence_view_async_shared)
# before each hand-off, and after the loop the state is written out with a
# TMA store.  For an empty sequence of a varlen batch (t_tiles == 0) the
# loop never runs, so no fence covers the zero-init writes: the TMA store
# (async proxy) may read stale shared memory into final_state.
# Modelled: two math warpgroups (instances of `math`), each owning 64 rows
# of the 128x64 state; a TMA loader feeds the chunks through a 2-slot ring;
# the state is published to the storing instance by a named barrier, as
# the kernel's __syncthreads() does.
# Fix: flashkda_zero_init_state_empty_sequence_fixed.cake.
# expect: proxy.missing-fence
@cake.schedule(target="sm_90a")
def kda_fwd_zero_init_state(lm, X: LM.tma2d, State: LM.tma2d, seqlen: LM.i32):
    lm.assume(seqlen >= 0)
    pool    = lm.smem(49152)
    smem_s  = pool.view(offset=0,     shape=(128, 64), dtype=lm.bf16, stages=1)
    smem_x  = pool.view(offset=16384, shape=(128, 64), dtype=lm.bf16, stages=2)
    s_r     = lm.regs(shape=(64, 64), dtype=lm.f32)
    x_r     = lm.regs(shape=(64, 64), dtype=lm.f32)

    loader = lm.role(warps=[0])
    math   = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4)
    pipe   = lm.pipeline(stages=2)
    full   = lm.barrier(prod=[loader], cons=[math], init_count=1, pipeline=pipe)
    empty  = lm.barrier(prod=[math], cons=[loader], init_count=2, pipeline=pipe)
    done   = lm.named_barrier(roles=[math])

    t_tiles = lm.cdiv(seqlen, 128)
    h0 = lm.block_idx(0) * 128

    with loader:
        for t in lm.range(0, t_tiles):
            lm.wait(empty, iter=t - 2)
            smem_x.tma_load(X, coords=(t * 128, 0), iter=t, barrier=full)

    with math:
        r0 = 64 * lm.instance()
        lm.fill(s_r, 0.0)
        lm.copy(smem_s[0][r0:r0 + 64, :], s_r)
        for t in lm.range(0, t_tiles):
            lm.wait(full, iter=t)
            lm.copy(x_r, smem_x[t][r0:r0 + 64, :])
            lm.fence_proxy()
            lm.arrive(empty, iter=t)
            lm.copy(s_r, smem_s[0][r0:r0 + 64, :])
            lm.binary(s_r, s_r, x_r, op="add")
            lm.copy(smem_s[0][r0:r0 + 64, :], s_r)
            lm.fence_proxy()
        lm.sync(done)
        if lm.instance() == 0:
            smem_s.tma_store(State, coords=(h0, 0))  # expect-error: proxy.missing-fence
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
