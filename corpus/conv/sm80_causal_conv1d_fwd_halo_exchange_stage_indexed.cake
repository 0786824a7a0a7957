# Mamba's causal depthwise conv1d forward (Dao-AILab/causal-conv1d,
# csrc/causal_conv1d_fwd.cu, causal_conv1d_fwd_kernel), the halo exchange
# written as the source names it: smem_exchange[127] is read and written
# through the 4-row view's stage index (ex[3][:, 124:128]), not a second
# view named by chunk (sm80_causal_conv1d_fwd_halo_exchange.cake, which
# explains the kernel).  Thread 0 writes the initial state into entry 127
# before the chunk loop and reads it back in chunk 0; from chunk 1 on it
# reads the value thread 127 wrote after the previous chunk's third
# __syncthreads.  Its first read finds its own initial value, so its k-th
# return means the k-th lap of the other writer: docs/rules/data.stale-read.md
# "An initial value read back first" (a false data.stale-read before).
# Bug twin: corpus/bugs/data.stale-read/sm80_causal_conv1d_halo_stage_indexed_first_write_skipped.cake.
# lower: unsupported (one lane's 16-byte slice of a warp's fragment and a 1 x 4 weight broadcast over it are not lowered)
# expect: pass
@cake.schedule(target="sm_80")
def causal_conv1d_fwd_stage_indexed(lm, X: LM.gmem, W: LM.gmem, OUT: LM.gmem, seqlen: LM.i32):
    lm.assume(seqlen > 0)
    pool = lm.smem(2048)
    ex   = pool.view(offset=0,    shape=(1, 128), dtype=lm.f32, stages=4)   # warp row: 32 x 16 B
    x    = lm.regs(shape=(1, 128), dtype=lm.f32)
    own  = lm.regs(shape=(1, 124), dtype=lm.f32)
    prev = lm.regs(shape=(1, 4),   dtype=lm.f32)
    z    = lm.regs(shape=(1, 4),   dtype=lm.f32)
    w4   = lm.regs(shape=(1, 4),   dtype=lm.f32)
    out  = lm.regs(shape=(1, 128), dtype=lm.f32)

    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])

    n_chunks = lm.cdiv(seqlen, 1024)
    b  = lm.block_idx(0)
    ch = lm.block_idx(1)

    with warps:
        w = lm.instance()
        if w == 0:
            lm.fill(z, 0.0)
            lm.copy(ex[3][:, 124:128], z)           # initial state -> entry 127
        lm.copy(w4, W, coords=(ch, 0))
        for c in lm.range(0, n_chunks):
            lm.copy(x, X, coords=(b, ch, c * 1024 + 256 * w))
            lm.sync(block)
            if w < 3:
                lm.copy(ex[w], x)
            else:
                lm.copy(ex[3][:, 0:124], x[:, 0:124])
            lm.sync(block)
            lm.copy(own, ex[w][:, 0:124])
            if w == 0:
                lm.copy(prev, ex[3][:, 124:128])    # thread 0: the previous chunk's thread 127
            else:
                lm.copy(prev, ex[w - 1][:, 124:128])
            lm.sync(block)
            if w == 3:
                lm.copy(ex[3][:, 124:128], x[:, 124:128])  # the last thread writes late
            lm.binary(out, x, prev, op="mul")
            lm.binary(out, out, w4[:, 0:1], op="add")
            lm.copy(OUT, out, coords=(b, ch, c * 1024 + 256 * w))
