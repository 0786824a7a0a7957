# FlashInfer's persistent merge-states kernel with the LSE staging read as
# the source names it: s_smem[ty] written once every 8 iterations (a round),
# s_smem[e // 8][:, e % 8] read in each
# (corpus/attention/sm90_flashinfer_persistent_merge_states.cake, which
# explains the kernel, names the rows by (item, round, warp)).  Each entry
# is read once per round: returns counted per byte
# (docs/rules/data.stale-read.md "Returns are counted per byte"); a false
# data.stale-read before.
# expect: pass
@cake.schedule(target="sm_90a")
def flashinfer_persistent_merge_states_stage_indexed(lm, V: LM.gmem, S: LM.gmem, VM: LM.gmem, SM: LM.gmem,
                                       total: LM.i32, n_sets: LM.i32):
    lm.assume(total > 0)
    lm.assume(n_sets >= 0)
    lm.assume(n_sets <= 64)                         # KV splits per item (the planner bounds them)
    lm.grid_dependency(V)
    lm.grid_dependency(S)
    pool   = lm.smem(2560)
    v_smem = pool.view(offset=0,    shape=(1, 128), dtype=lm.bf16, stages=8)
    s_smem = pool.view(offset=2048, shape=(1, 8),   dtype=lm.f32,  stages=4)   # staged per warp: s_smem[e // 8]
    o_smem = pool.view(offset=0,    shape=(1, 64),  dtype=lm.f32,  stages=4)   # merge: over the ring
    l_smem = pool.view(offset=2048, shape=(1, 1),   dtype=lm.f32,  stages=4)   # merge: s_smem[ty]
    v   = lm.regs(shape=(1, 128), dtype=lm.f32)
    o   = lm.regs(shape=(1, 128), dtype=lm.f32)
    sv  = lm.regs(shape=(1, 8),   dtype=lm.f32)
    s1  = lm.regs(shape=(1, 1),   dtype=lm.f32)
    lse = lm.regs(shape=(1, 1),   dtype=lm.f32)
    oh  = lm.regs(shape=(1, 64),  dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    my_items = lm.cdiv(max(total - lm.block_idx(0), 0), lm.grid_dim(0))
    n_iters  = lm.cdiv(n_sets, 4)
    n_rounds = lm.cdiv(n_iters, 8)                  # s_smem refills per item

    with warps:
        ty = lm.instance()
        lm.grid_dep_wait()
        for t in lm.range(0, my_items):
            item = lm.block_idx(0) + t * lm.grid_dim(0)
            lm.sync(block)
            if n_sets == 0:
                lm.fill(o, 0.0)
                lm.copy(VM, o, coords=(item, 0))
                lm.fill(lse, -1e30)
                lm.copy(SM, lse, coords=(item, 0))
            elif n_sets == 1:
                lm.copy(v, V, coords=(item, 0, 0))
                lm.copy(VM, v, coords=(item, 0))
                lm.copy(lse, S, coords=(item, 0))
                lm.copy(SM, lse, coords=(item, 0))
            else:
                for st in lm.range(0, 2):
                    if 4 * st + ty < n_sets:
                        v_smem.cp_async(V, coords=(item, 4 * st + ty, 0), iter=4 * st + ty)
                    lm.cp_async_commit()
                lm.fill(o, 0.0)
                for it in lm.range(0, n_iters):
                    if it % 8 == 0:
                        lm.copy(sv, S, coords=(item, 4 * it + 8 * ty))
                        lm.copy(s_smem[ty], sv)
                        lm.sync(block)
                    lm.cp_async_wait(pending=1)
                    lm.sync(block)
                    if 4 * it + ty < n_sets:                # the kernel loads v unpredicated, merges under this guard
                        lm.copy(v, v_smem[4 * it + ty])
                        e = (it % 8) * 4 + ty               # entry written by warp e // 8
                        lm.copy(s1, s_smem[e // 8][:, e % 8:e % 8 + 1])
                        lm.binary(v, v, s1, op="mul")
                        lm.binary(o, o, v, op="add")
                    lm.sync(block)
                    if 4 * (it + 2) + ty < n_sets:
                        v_smem.cp_async(V, coords=(item, 4 * (it + 2) + ty, 0), iter=4 * (it + 2) + ty)
                    lm.cp_async_commit()
                lm.cp_async_wait(pending=0)
                lm.sync(block)
                lm.reduce(lse, o, op="max", axis=1)
                lm.copy(o_smem[ty], o[:, 0:64])            # threadblock_sync_state
                lm.copy(l_smem[ty], lse)
                lm.sync(block)
                lm.fill(o, 0.0)
                for j in lm.range(0, 4):
                    lm.copy(lse, l_smem[j])
                    lm.copy(oh, o_smem[j])
                lm.copy(VM, o, coords=(item, 0))
                lm.copy(SM, lse, coords=(item, 0))
        lm.launch_dependents()
