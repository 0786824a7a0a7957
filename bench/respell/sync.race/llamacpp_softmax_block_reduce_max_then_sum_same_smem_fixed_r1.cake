# RESPELLING of corpus/bugs/sync.race/llamacpp_softmax_block_reduce_max_then_sum_same_smem_fixed.cake (the fix: a barrier before the second reduction)
# (ggml-org/llama.cpp soft_max_f32): the cross-warp read as a loop over the
# four partials (one element at a time), the row index named, exp spelled
# as the same unary, an extra unused register fragment.
# expect: pass
@cake.schedule(target="sm_80")
def soft_max_f32_fixed(lm, x: LM.gmem, dst: LM.gmem):
    smem = lm.smem(256)
    shared_vals = smem.view(offset=0, shape=(1, 4), dtype=lm.f32)
    v     = lm.regs(shape=(1, 32), dtype=lm.f32)
    p     = lm.regs(shape=(1, 1), dtype=lm.f32)
    one   = lm.regs(shape=(1, 1), dtype=lm.f32)
    vmax  = lm.regs(shape=(1, 1), dtype=lm.f32)
    vsum  = lm.regs(shape=(1, 1), dtype=lm.f32)
    spare = lm.regs(shape=(1, 4), dtype=lm.f32)
    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    syncthreads = lm.named_barrier(roles=[warps])
    with warps:
        warp_id = lm.instance()
        rowx = lm.block_idx(0)
        lm.copy(v, x, coords=(rowx, warp_id * 32))
        lm.reduce(p, v, op="max", axis=1)
        lm.copy(shared_vals[0][0:1, warp_id:warp_id + 1], p)
        lm.sync(syncthreads)
        lm.copy(vmax, shared_vals[0][0:1, 0:1])
        for j in lm.range(1, 4):
            lm.copy(one, shared_vals[0][0:1, j:j + 1])
            lm.binary(vmax, vmax, one, op="max")
        lm.binary(v, v, vmax, op="sub")
        lm.unary(v, v, op="exp2")
        lm.sync(syncthreads)                 # the fix
        lm.reduce(p, v, op="sum", axis=1)
        lm.copy(shared_vals[0][0:1, warp_id:warp_id + 1], p)
        lm.sync(syncthreads)
        lm.copy(vsum, shared_vals[0][0:1, 0:1])
        for j in lm.range(1, 4):
            lm.copy(one, shared_vals[0][0:1, j:j + 1])
            lm.binary(vsum, vsum, one, op="add")
        lm.unary(vsum, vsum, op="recip")
        lm.binary(v, v, vsum, op="mul")
        lm.copy(dst, v, coords=(rowx, warp_id * 32))
