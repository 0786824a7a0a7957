# FIXED: megatron_mla_rope_bwd_q_inplace_interleave_no_barrier.cake as
# NVIDIA/Megatron-LM PR #5963 fixes it: a tl.debug_barrier() (a
# __syncthreads over the program's warps) after the source loads and before
# the first overlapping store, so every warp has read its split halves
# before any warp writes the interleaved pairs over them.
# expect: pass
# lower: unsupported (a column slice out[:, 8:16] of a register fragment as a copy source: the lowering spreads a fragment's columns over the instance's 32 threads)
@cake.schedule(target="sm_90a")
def mla_rope_bwd_q_inplace_barrier(lm, G: LM.gmem):
    x1  = lm.regs(shape=(1, 8), dtype=lm.f32)       # dq[..., i], split layout, first half
    x2  = lm.regs(shape=(1, 8), dtype=lm.f32)       # dq[..., 32 + i], second half
    out = lm.regs(shape=(1, 16), dtype=lm.f32)      # interleaved pairs (2 i, 2 i + 1)

    prog = lm.role(warps=[0, 1, 2, 3], group=1)
    bar  = lm.named_barrier(roles=[prog])

    with prog:
        w = lm.instance()
        h = lm.block_idx(0)
        lm.copy(x1, G, coords=(h, 8 * w))  
        lm.copy(x2, G, coords=(h, 32 + 8 * w))                   
        lm.copy(out[:, 0:8], x1)                                   # rotate + interleave (stand-in)
        lm.copy(out[:, 8:16], x2)
        lm.sync(bar)                                               # tl.debug_barrier()
        lm.copy(G, out, coords=(h, 16 * w))
