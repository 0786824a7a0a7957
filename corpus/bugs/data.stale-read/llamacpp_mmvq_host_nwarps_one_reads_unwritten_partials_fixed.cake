# FIXED form of llamacpp_mmvq_host_nwarps_one_reads_unwritten_partials.cake
# (ggml-org/llama.cpp PR #28339): the host takes nwarps from the compiled
# kernel's launch bounds, so the block has the eight warps the device code
# was compiled for; warps 1..7 store their partial sums before warp 0 adds
# them.
# expect: pass
@cake.schedule(target="sm_80")
def llamacpp_mmvq_nwarps_mismatch_fixed(lm, X: LM.gmem, Dst: LM.gmem, n_rows: LM.i32):
    lm.assume(n_rows >= 1)
    pool       = lm.smem(1024)
    tmp_shared = pool.view(offset=0, shape=(1, 32), dtype=lm.f32, stages=7)   # [nwarps-1][1][1][32]
    tmp        = lm.regs(shape=(1, 32), dtype=lm.f32)
    part       = lm.regs(shape=(1, 32), dtype=lm.f32)
    res        = lm.regs(shape=(1, 1), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=1)   # the launch reads nwarps = 8 back
    block = lm.named_barrier(roles=[warps])

    with warps:
        y = lm.instance()                       # threadIdx.y
        lm.copy(tmp, X, coords=(0, 32 * y))     # this warp's partial dot products
        if y > 0:
            lm.copy(tmp_shared[y - 1], tmp)
        lm.sync(block)
        if y == 0:
            for l in lm.range(0, 7):            # nwarps - 1 as compiled: 7
                lm.copy(part, tmp_shared[l])
                lm.binary(tmp, tmp, part, op="add")
            lm.reduce(res, tmp, op="sum", axis=1)
            lm.copy(Dst, res, coords=(0, 0))
