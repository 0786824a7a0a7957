# FIXED form of sparkinfer_gdn_conv_l2norm_sw_reuse_no_barrier.cake
# (gittensor-ai-lab/sparkinfer PR #665/#705): a __syncthreads() after every
# warp's read of the normalizer sw[0], so no warp writes the next token's
# partial over it while another still reads it.
# expect: pass
@cake.schedule(target="sm_80")
def sparkinfer_gdn_conv_l2norm_fixed(lm, X: LM.gmem, Y: LM.gmem, n_tok: LM.i32):
    lm.assume(n_tok >= 1)
    pool = lm.smem(16)
    sw   = pool.view(offset=0, shape=(1, 1), dtype=lm.f32, stages=4)
    cval = lm.regs(shape=(1, 32), dtype=lm.f32)
    sq   = lm.regs(shape=(1, 32), dtype=lm.f32)
    ss   = lm.regs(shape=(1, 1), dtype=lm.f32)
    oth  = lm.regs(shape=(1, 1), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        for t in lm.range(0, n_tok):
            lm.copy(cval, X, coords=(t, 32 * w))
            lm.binary(sq, cval, cval, op="mul")
            lm.reduce(ss, sq, op="sum", axis=1)
            lm.copy(sw[w], ss)
            lm.sync(block)
            if w == 0:
                lm.copy(ss, sw[0])
                for i in lm.range(1, 4):
                    lm.copy(oth, sw[i])
                    lm.binary(ss, ss, oth, op="add")
                lm.unary(ss, ss, op="rsqrt")
                lm.copy(sw[0], ss)                      # sw[0] = rsqrtf(vv + eps)
            lm.sync(block)
            lm.copy(ss, sw[0])                          # cval *= sw[0]
            lm.binary(cval, cval, ss, op="mul")
            lm.copy(Y, cval, coords=(t, 32 * w))
            lm.sync(block)                              # the fix
