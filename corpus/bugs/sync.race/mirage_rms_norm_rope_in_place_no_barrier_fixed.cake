# FIXED: mirage_rms_norm_rope_in_place_no_barrier.cake as mirage-project/
# mirage PR #384 fixes it ("Repair r/w race among rope adding threads"):
# the rotated value stays in a register (v_rot), a __syncthreads() waits
# until every thread has read both of its inputs, and only then is it
# written back into smem_input.
# expect: pass
@cake.schedule(target="sm_90a")
def mirage_rms_norm_rope_in_place_sync_before_write(lm, X: LM.gmem, Out: LM.gmem):
    pool  = lm.smem(2048)
    inp   = pool.view(offset=0,    shape=(1, 128), dtype=lm.bf16, stages=4)   # smem_input[head]
    ssum  = pool.view(offset=1024, shape=(1, 32),  dtype=lm.f32,  stages=4)   # smem_sum[warp]
    x     = lm.regs(shape=(1, 32), dtype=lm.bf16)
    v1    = lm.regs(shape=(1, 32), dtype=lm.bf16)
    v2    = lm.regs(shape=(1, 32), dtype=lm.bf16)
    sq    = lm.regs(shape=(1, 32), dtype=lm.f32)
    part  = lm.regs(shape=(1, 32), dtype=lm.f32)
    rms   = lm.regs(shape=(1, 32), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    bar   = lm.named_barrier(roles=[warps])

    with warps:
        w = lm.instance()
        c0 = 32 * w
        p0 = 32 * ((w + 2) % 4)
        for h in lm.range(0, 4):
            lm.copy(x, X, coords=(h, c0))
            lm.copy(inp[h][:, c0:c0 + 32], x)
        lm.sync(bar)
        for h in lm.range(0, 4):
            lm.copy(x, inp[h][:, c0:c0 + 32])
            lm.binary(sq, x, x, op="mul")
            lm.copy(ssum[w], sq)
            lm.sync(bar)
            if w == 0:
                lm.copy(rms, ssum[0])
                for j in lm.range(1, 4):
                    lm.copy(part, ssum[j])
                    lm.binary(rms, rms, part, op="add")
                lm.copy(ssum[0], rms)
            lm.sync(bar)
            lm.copy(rms, ssum[0])
            lm.binary(x, x, rms, op="mul")
            lm.copy(inp[h][:, c0:c0 + 32], x)
            lm.sync(bar)
            lm.copy(v1, inp[h][:, c0:c0 + 32])
            lm.copy(v2, inp[h][:, p0:p0 + 32])
            lm.binary(v1, v1, v2, op="add")
            lm.sync(bar)                                 # the fix: every read done before the write
            lm.copy(inp[h][:, c0:c0 + 32], v1)
            lm.copy(Out, v1, coords=(h, c0))
