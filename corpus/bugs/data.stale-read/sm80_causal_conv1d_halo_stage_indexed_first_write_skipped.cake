# BUG (data.stale-read): Mamba's causal conv1d forward with the halo
# exchange named by stage (corpus/conv/sm80_causal_conv1d_fwd_halo_exchange_stage_indexed.cake,
# which explains the kernel), where thread 127 skips its carried write in
# chunk 0 (a guard off by one).  A seeded bug, not one of the kernel's
# history.  Chunk 1 reads the initial state again where chunk 0's last
# elements were meant (its own data, which the rule never calls stale);
# the checker meets the slip one chunk later: thread 0's second return
# means the other writer's lap 1 (its own initial value is no lap of the
# writer's) and finds lap 0: data.stale-read for seqlen >= 2049.
# Fix: the unguarded write, corpus/conv/sm80_causal_conv1d_fwd_halo_exchange_stage_indexed.cake.
# expect: data.stale-read
@cake.schedule(target="sm_80")
def causal_conv1d_fwd_halo_first_write_skipped(lm, X: LM.gmem, W: LM.gmem, OUT: LM.gmem, seqlen: LM.i32):
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
                lm.copy(prev, ex[3][:, 124:128])    # expect-error: data.stale-read
            else:
                lm.copy(prev, ex[w - 1][:, 124:128])
            lm.sync(block)
            if w == 3:
                if c > 0:                             # the bug: chunk 0's last elements are never written
                    lm.copy(ex[3][:, 124:128], x[:, 124:128])
            lm.binary(out, x, prev, op="mul")
            lm.binary(out, out, w4[:, 0:1], op="add")
            lm.copy(OUT, out, coords=(b, ch, c * 1024 + 256 * w))
